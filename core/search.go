package core

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/sessions"
)

// Bounds of the search tools, so an agent cannot flood its context.
const (
	maxGlobResults = 500
	maxGrepResults = 200
	maxGrepFile    = 2 << 20
)

// walk visits the workspace's files in order, skipping what .gitignore
// ignores and the folders hidden by default (.git, node_modules, .state),
// until fn returns false.
func (c *call) walk(fn func(rel string) bool) error {
	ws := c.e.opts.Files
	ig := files.NewIgnore()
	hidden := map[string]bool{}
	for _, h := range files.DefaultHidden {
		hidden[h] = true
	}
	var visit func(dir string) (bool, error)
	visit = func(dir string) (bool, error) {
		if err := c.ctx.Err(); err != nil {
			return false, err
		}
		ig.Load(ws, dir)
		ents, err := ws.List(dir)
		if err != nil {
			return true, nil
		}
		for _, en := range ents {
			rel := path.Join(dir, en.Name())
			if dir == "." {
				rel = en.Name()
			}
			if hidden[en.Name()] || ig.MatchEntry(rel, en.IsDir()) {
				continue
			}
			if en.IsDir() {
				if ok, err := visit(rel); !ok || err != nil {
					return ok, err
				}
				continue
			}
			if en.Type()&fs.ModeType == 0 && !fn(rel) {
				return false, nil
			}
		}
		return true, nil
	}
	_, err := visit(".")
	return err
}

// globMatch matches a slash-separated path against a pattern where "**"
// spans any number of folders and the other wildcards are path.Match's.
func globMatch(pattern, name string) bool {
	ps, ns := strings.Split(pattern, "/"), strings.Split(name, "/")
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(ps) {
			if ps[i] == "**" {
				for k := j; k <= len(ns); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			}
			if j >= len(ns) {
				return false
			}
			if ok, _ := path.Match(ps[i], ns[j]); !ok {
				return false
			}
			i, j = i+1, j+1
		}
		return j == len(ns)
	}
	return match(0, 0)
}

func runGlob(c *call) (string, sessions.ToolState) {
	pattern := c.str("pattern")
	if pattern == "" {
		return "glob needs a pattern", sessions.ToolError
	}
	if _, err := path.Match(strings.ReplaceAll(pattern, "**", "x"), ""); err != nil {
		return "bad pattern: " + err.Error(), sessions.ToolError
	}
	if !strings.Contains(pattern, "/") {
		pattern = "**/" + pattern
	}
	release, err := c.lease(false)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	defer release()
	var out []string
	more := false
	err = c.walk(func(rel string) bool {
		if globMatch(pattern, rel) {
			if len(out) == maxGlobResults {
				more = true
				return false
			}
			out = append(out, rel)
		}
		return true
	})
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	if more {
		out = append(out, fmt.Sprintf("[more than %d matches; narrow the pattern]", maxGlobResults))
	}
	if len(out) == 0 {
		return "no files match " + c.str("pattern"), sessions.ToolDone
	}
	return strings.Join(out, "\n"), sessions.ToolDone
}

func runGrep(c *call) (string, sessions.ToolState) {
	re, err := regexp.Compile(c.str("pattern"))
	if err != nil || c.str("pattern") == "" {
		return fmt.Sprintf("bad pattern %q: %v", c.str("pattern"), err), sessions.ToolError
	}
	only := c.str("glob")
	if only != "" && !strings.Contains(only, "/") {
		only = "**/" + only
	}
	release, err := c.lease(false)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	defer release()
	var out []string
	more := false
	err = c.walk(func(rel string) bool {
		if only != "" && !globMatch(only, rel) {
			return true
		}
		got, err := c.e.opts.Files.ReadFile(c.l.rec.ID, rel, files.ReadOptions{MaxBytes: maxGrepFile})
		if err != nil {
			return true // binary, too large, unreadable: not searched
		}
		sc := bufio.NewScanner(bytes.NewReader(got.Data))
		sc.Buffer(make([]byte, 64<<10), maxGrepFile)
		for n := 1; sc.Scan(); n++ {
			if re.Match(sc.Bytes()) {
				if len(out) == maxGrepResults {
					more = true
					return false
				}
				line := sc.Text()
				if len(line) > 300 {
					line = line[:300] + "…"
				}
				out = append(out, fmt.Sprintf("%s:%d: %s", rel, n, line))
			}
		}
		return true
	})
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	if more {
		out = append(out, fmt.Sprintf("[more than %d matches; narrow the pattern]", maxGrepResults))
	}
	if len(out) == 0 {
		return "no matches", sessions.ToolDone
	}
	return strings.Join(out, "\n"), sessions.ToolDone
}
