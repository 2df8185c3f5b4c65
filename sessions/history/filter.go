package history

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// DefaultSecretPatterns returns the patterns of the files that never enter
// the history, whatever the user's .gitignore says: environment files,
// private keys, key stores and certificates, credential files. A pattern
// without a slash matches a file's base name; with a slash, its path from
// the workspace root (path.Match syntax).
func DefaultSecretPatterns() []string {
	return []string{
		".env*",
		"*.pem", "*.key", "*.crt", "*.cer",
		"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
		"*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx",
		".netrc", ".pgpass",
	}
}

// DefaultMaxFileSize is the size above which a file is left out of the
// history (and listed as skipped in the turn's commit).
const DefaultMaxFileSize int64 = 10 << 20

// stateDir is the workspace folder the engine keeps its files in.
const stateDir = ".state"

// Secrets matches workspace paths against the secret patterns: the files
// the history leaves out and the engine asks the operator before an agent's
// file tool reads. The zero value matches nothing.
type Secrets struct {
	patterns []string
}

// NewSecrets returns the matcher of DefaultSecretPatterns plus extra (the
// configured patterns, same syntax; a leading "/" anchors nothing more and
// is dropped). A malformed extra pattern is reported with ErrBadInput; the
// matcher returned with that error still holds every other pattern, so a
// caller that must not fail open can keep using it.
func NewSecrets(extra []string) (Secrets, error) {
	s := Secrets{patterns: DefaultSecretPatterns()}
	var bad error
	for _, p := range extra {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, err := path.Match(p, "x"); err != nil {
			if bad == nil {
				bad = fmt.Errorf("secret pattern %q: %w", p, ErrBadInput)
			}
			continue
		}
		s.patterns = append(s.patterns, strings.TrimPrefix(p, "/"))
	}
	return s, bad
}

// Match reports whether the workspace-relative path rel matches a secret
// pattern: its base name for a pattern without a slash, its whole path for
// one with a slash.
func (s Secrets) Match(rel string) bool {
	base := path.Base(rel)
	for _, p := range s.patterns {
		target := base
		if strings.Contains(p, "/") {
			target = rel
		}
		if ok, _ := path.Match(p, target); ok {
			return true
		}
	}
	return false
}

// filter decides which workspace paths the history may record.
type filter struct {
	secrets []string
	maxSize int64 // <= 0: no limit
}

func newFilter(o Options) (filter, error) {
	f := filter{maxSize: o.MaxFileSize}
	if f.maxSize == 0 {
		f.maxSize = DefaultMaxFileSize
	}
	s, err := NewSecrets(o.ExtraSecretPatterns)
	if err != nil {
		return filter{}, err
	}
	f.secrets = s.patterns
	return f, nil
}

// internal reports whether rel is the engine's own (.state/) or belongs to a
// git repository (a .git component), which workspace history never records.
func internal(rel string) bool {
	if rel == stateDir || strings.HasPrefix(rel, stateDir+"/") {
		return true
	}
	for _, c := range strings.Split(rel, "/") {
		if c == ".git" {
			return true
		}
	}
	return false
}

// secret reports whether rel matches a secret pattern.
func (f filter) secret(rel string) bool {
	return Secrets{patterns: f.secrets}.Match(rel)
}

// tooBig reports whether a file of size bytes is over the limit.
func (f filter) tooBig(size int64) bool {
	return f.maxSize > 0 && size > f.maxSize
}

// relPath turns a path given by a caller (relative to the workspace, or
// absolute inside it) into a clean slash-separated path relative to the
// workspace root. An absolute path may reach the workspace through a
// symbolic link (/tmp and /private/tmp, say). It refuses paths that leave
// the workspace.
func (h *History) relPath(p string) (string, error) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q: %w", p, ErrBadPath)
	}
	if !filepath.IsAbs(p) {
		return inside(p)
	}
	rel, err := inside(relTo(h.workspace, p))
	if err == nil {
		return rel, nil
	}
	resolved := p
	if dir, derr := filepath.EvalSymlinks(filepath.Dir(p)); derr == nil {
		resolved = filepath.Join(dir, filepath.Base(p))
	}
	if rel, rerr := inside(relTo(h.realWorkspace, resolved)); rerr == nil {
		return rel, nil
	}
	return "", err
}

// relTo is p relative to root, or p itself when there is no such path.
func relTo(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return r
	}
	return p
}

// inside cleans a relative path and refuses one that leaves the workspace.
func inside(p string) (string, error) {
	if filepath.IsAbs(p) {
		return "", fmt.Errorf("path %q is outside the workspace: %w", p, ErrBadPath)
	}
	p = filepath.ToSlash(filepath.Clean(p))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("path %q escapes the workspace: %w", p, ErrBadPath)
	}
	return p, nil
}

// lstatRel stats a workspace-relative path without following a final link.
func lstatRel(workspace, rel string) (os.FileInfo, error) {
	return os.Lstat(filepath.Join(workspace, filepath.FromSlash(rel)))
}
