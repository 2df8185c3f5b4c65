package core

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

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
// until fn returns false. It returns the folders it could not search (not
// listed, or their ignore rules not read), each with why.
func (c *call) walk(fn func(rel string) bool) (skipped []string, err error) {
	ws := c.p.files
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
		if err := ig.Load(ws, dir); err != nil {
			skipped = append(skipped, fmt.Sprintf("%s (its .gitignore: %v)", dir, err))
			return true, nil
		}
		ents, err := ws.List(dir)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s (%v)", dir, err))
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
	_, err = visit(".")
	return skipped, err
}

// notSearched words the folders a walk skipped, for a tool's output.
func notSearched(skipped []string) []string {
	out := make([]string, len(skipped))
	for i, s := range skipped {
		out[i] = "[not searched: " + s + "]"
	}
	return out
}

// globMatch matches a slash-separated path against a pattern where "**"
// spans any number of folders, "{a,b}" either, and the other wildcards
// are path.Match's. The pattern must be valid (checkGlob). Matching takes
// time polynomial in the lengths, however many "**" the pattern has.
func globMatch(pattern, name string) bool {
	return doublestar.MatchUnvalidated(pattern, name)
}

// checkGlob returns the pattern the search tools match paths against: a
// pattern without a folder matches in any folder. It refuses a malformed
// pattern.
func checkGlob(pattern string) (string, error) {
	if !doublestar.ValidatePattern(pattern) {
		return "", fmt.Errorf("bad pattern %q: %w", pattern, doublestar.ErrBadPattern)
	}
	if !strings.Contains(pattern, "/") {
		pattern = "**/" + pattern
	}
	return pattern, nil
}

func runGlob(c *call) (string, sessions.ToolState) {
	pattern := c.str("pattern")
	if pattern == "" {
		return "glob needs a pattern", sessions.ToolError
	}
	pattern, err := checkGlob(pattern)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	release, err := c.lease(false)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	defer release()
	var out []string
	more := false
	skipped, err := c.walk(func(rel string) bool {
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
		out = append(out, "no files match "+c.str("pattern"))
	}
	out = append(out, notSearched(skipped)...)
	return strings.Join(out, "\n"), sessions.ToolDone
}

func runGrep(c *call) (string, sessions.ToolState) {
	re, err := regexp.Compile(c.str("pattern"))
	if err != nil || c.str("pattern") == "" {
		return fmt.Sprintf("bad pattern %q: %v", c.str("pattern"), err), sessions.ToolError
	}
	only := c.str("glob")
	if only != "" {
		if only, err = checkGlob(only); err != nil {
			return err.Error(), sessions.ToolError
		}
	}
	release, err := c.lease(false)
	if err != nil {
		return err.Error(), sessions.ToolError
	}
	defer release()
	var out, secret []string
	more := false
	skipped, err := c.walk(func(rel string) bool {
		if only != "" && !globMatch(only, rel) {
			return true
		}
		// Secret files (.env, keys...) ask before a read; grep does not ask,
		// so it leaves them out and says so, rather than print their lines.
		if c.e.guardRead(c.p, rel).secret {
			secret = append(secret, rel)
			return true
		}
		got, err := c.p.files.ReadFile(c.l.rec.ID, rel, files.ReadOptions{MaxBytes: maxGrepFile})
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
		out = append(out, "no matches")
	}
	out = append(out, notSearched(skipped)...)
	for _, p := range secret {
		out = append(out, "[not searched: "+p+" (a secret file: read it with read_file, which asks the operator)]")
	}
	return strings.Join(out, "\n"), sessions.ToolDone
}
