package files

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"sync"
)

// DefaultHidden names the folders the tree hides and the watcher never
// enters, wherever they are, whatever .gitignore says: version control
// internals, dependency trees and Atelier's own state.
var DefaultHidden = []string{".git", "node_modules", StateDir}

// isDefaultHidden reports whether a base name is one of DefaultHidden.
func isDefaultHidden(name string) bool {
	switch name {
	case ".git", "node_modules", StateDir:
		return true
	}
	return false
}

// Ignore holds the .gitignore rules of a workspace: one rule set per folder
// holding a .gitignore, plus the repository-wide exclude file. It follows
// git's rules: nested files, later lines and deeper files win, "!" negates,
// a trailing "/" matches folders only, a slash elsewhere anchors the pattern
// to its folder, "**" spans folders, and nothing inside an ignored folder can
// be re-included. It is safe for concurrent use.
type Ignore struct {
	mu    sync.RWMutex
	dirs  map[string][]ignoreRule // folder (workspace-relative) -> its rules
	extra []ignoreRule            // .git/info/exclude and added patterns, lowest precedence
}

type ignoreRule struct {
	negate   bool
	dirOnly  bool
	anchored bool
	segs     []string
}

// NewIgnore returns an empty rule set.
func NewIgnore() *Ignore {
	return &Ignore{dirs: map[string][]ignoreRule{}}
}

// Add sets the rules of the .gitignore found in folder dir (workspace
// relative, "" for the root) from its content, replacing earlier ones.
func (ig *Ignore) Add(dir string, content []byte) {
	rules := parseIgnore(content)
	dir = cleanRel(dir)
	ig.mu.Lock()
	defer ig.mu.Unlock()
	if len(rules) == 0 {
		delete(ig.dirs, dir)
		return
	}
	ig.dirs[dir] = rules
}

// AddPatterns adds workspace-wide patterns in .gitignore syntax, below every
// .gitignore in precedence (like .git/info/exclude).
func (ig *Ignore) AddPatterns(lines ...string) {
	rules := parseIgnore([]byte(strings.Join(lines, "\n")))
	ig.mu.Lock()
	ig.extra = append(ig.extra, rules...)
	ig.mu.Unlock()
}

// Remove forgets the rules of folder dir's .gitignore.
func (ig *Ignore) Remove(dir string) {
	ig.mu.Lock()
	delete(ig.dirs, cleanRel(dir))
	ig.mu.Unlock()
}

// FileReader reads files of a workspace: a *Workspace, or one another
// machine's engine serves.
type FileReader interface {
	ReadFile(actor, p string, o ReadOptions) (*Content, error)
}

// Load reads dir/.gitignore through the workspace and sets its rules (a
// missing file clears them); at the root it also reads .git/info/exclude.
func (ig *Ignore) Load(ws FileReader, dir string) error {
	dir = cleanRel(dir)
	if dir == "" {
		c, err := ws.ReadFile("", ".git/info/exclude", ReadOptions{MaxBytes: 1 << 20})
		if err == nil {
			rules := parseIgnore(c.Data)
			ig.mu.Lock()
			ig.extra = rules
			ig.mu.Unlock()
		}
	}
	c, err := ws.ReadFile("", joinRel(dir, ".gitignore"), ReadOptions{MaxBytes: 1 << 20})
	if errors.Is(err, fs.ErrNotExist) {
		ig.Remove(dir)
		return nil
	}
	if err != nil {
		return err
	}
	ig.Add(dir, c.Data)
	return nil
}

// Match reports whether the workspace-relative path rel is ignored, itself
// or through an ignored folder above it. isDir says whether rel is a folder.
func (ig *Ignore) Match(rel string, isDir bool) bool {
	rel = cleanRel(rel)
	if rel == "" {
		return false
	}
	ig.mu.RLock()
	defer ig.mu.RUnlock()
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && ig.matchLocked(rel[:i], true) {
			return true
		}
	}
	return ig.matchLocked(rel, isDir)
}

// MatchEntry reports whether rel itself is ignored, assuming the folders
// above it are not: the cheap question of a walk that prunes as it goes.
func (ig *Ignore) MatchEntry(rel string, isDir bool) bool {
	ig.mu.RLock()
	defer ig.mu.RUnlock()
	return ig.matchLocked(rel, isDir)
}

// matchLocked decides rel alone: the deepest .gitignore first, its last
// matching line wins; then the shallower ones; then the extra patterns.
func (ig *Ignore) matchLocked(rel string, isDir bool) bool {
	if len(ig.dirs) == 0 && len(ig.extra) == 0 {
		return false
	}
	end := len(rel)
	for {
		slash := strings.LastIndexByte(rel[:end], '/')
		dir := ""
		if slash >= 0 {
			dir = rel[:slash]
		}
		if rules, ok := ig.dirs[dir]; ok {
			sub := rel
			if dir != "" {
				sub = rel[len(dir)+1:]
			}
			if m, ok := decide(rules, sub, isDir); ok {
				return m
			}
		}
		if slash < 0 {
			break
		}
		end = slash
	}
	m, _ := decide(ig.extra, rel, isDir)
	return m
}

// decide applies one rule list to a path relative to its folder; ok is
// false when no rule matches.
func decide(rules []ignoreRule, sub string, isDir bool) (ignored, ok bool) {
	var segs []string
	base := sub[strings.LastIndexByte(sub, '/')+1:]
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		var m bool
		if !r.anchored {
			m = globMatch(r.segs[0], base)
		} else {
			if segs == nil {
				segs = strings.Split(sub, "/")
			}
			m = matchSegs(r.segs, segs)
		}
		if m {
			return !r.negate, true
		}
	}
	return false, false
}

// parseIgnore compiles the lines of a .gitignore.
func parseIgnore(content []byte) []ignoreRule {
	var rules []ignoreRule
	for _, line := range bytes.Split(content, []byte("\n")) {
		s := strings.TrimSuffix(string(line), "\r")
		s = trimTrailingSpaces(s)
		if s == "" || s[0] == '#' {
			continue
		}
		var r ignoreRule
		switch {
		case s[0] == '!':
			r.negate = true
			s = s[1:]
		case strings.HasPrefix(s, `\!`), strings.HasPrefix(s, `\#`):
			s = s[1:]
		}
		if strings.HasSuffix(s, "/") {
			r.dirOnly = true
			s = strings.TrimRight(s, "/")
		}
		if s == "" {
			continue
		}
		if strings.Contains(s, "/") {
			r.anchored = true
			s = strings.TrimLeft(s, "/")
		}
		r.segs = strings.Split(s, "/")
		rules = append(rules, r)
	}
	return rules
}

// trimTrailingSpaces drops unescaped trailing spaces; "\ " keeps one.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		if strings.HasSuffix(s, `\ `) {
			return s[:len(s)-2] + " "
		}
		s = s[:len(s)-1]
	}
	return s
}

// matchSegs matches path segments against pattern segments, "**" spanning
// any number of them (at least one when it ends the pattern).
func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return len(segs) > 0
			}
			for i := 0; i < len(segs); i++ {
				if matchSegs(pat, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 || !globMatch(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// globMatch matches one path segment against one pattern segment: "*" any
// run, "?" one character, "[...]" a class ("!" or "^" negates, ranges
// allowed), "\" escapes.
func globMatch(pat, name string) bool {
	px, nx := 0, 0
	starP, starN := -1, -1
	for nx < len(name) || px < len(pat) {
		if px < len(pat) {
			switch c := pat[px]; c {
			case '*':
				starP, starN = px, nx
				px++
				continue
			case '?':
				if nx < len(name) {
					px++
					nx++
					continue
				}
			case '[':
				if nx < len(name) {
					if ok, width := matchClass(pat[px:], name[nx]); width > 0 {
						if ok {
							px += width
							nx++
							continue
						}
						break
					}
				}
				if nx < len(name) && name[nx] == '[' {
					px++
					nx++
					continue
				}
			case '\\':
				if px+1 < len(pat) && nx < len(name) && pat[px+1] == name[nx] {
					px += 2
					nx++
					continue
				}
			default:
				if nx < len(name) && name[nx] == c {
					px++
					nx++
					continue
				}
			}
		}
		if starP >= 0 && starN < len(name) {
			starN++
			px, nx = starP+1, starN
			continue
		}
		return false
	}
	return true
}

// matchClass matches c against the class that pat starts with; width is the
// class's length in pat, 0 when it is not a well-formed class.
func matchClass(pat string, c byte) (bool, int) {
	i := 1
	neg := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		neg = true
		i++
	}
	matched := false
	first := true
	for i < len(pat) {
		if pat[i] == ']' && !first {
			return matched != neg, i + 1
		}
		first = false
		lo := pat[i]
		if lo == '\\' && i+1 < len(pat) {
			i++
			lo = pat[i]
		}
		hi := lo
		if i+2 < len(pat) && pat[i+1] == '-' && pat[i+2] != ']' {
			hi = pat[i+2]
			i += 2
		}
		if lo <= c && c <= hi {
			matched = true
		}
		i++
	}
	return false, 0
}
