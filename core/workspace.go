package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/atelier-studio/atelier/sessions"
)

// Workspace is the file access the built-in tools need. Every path is
// relative to the workspace and confined to it; actor is the session id (or
// "operator") the change is attributed to.
type Workspace interface {
	ReadFile(actor, rel string) ([]byte, error)
	WriteFile(actor, rel string, data []byte) error
	List(actor, rel string) ([]os.DirEntry, error)
	Protected(rel string) bool
}

// ErrOutside is returned for a path that leaves the workspace.
var ErrOutside = errors.New("path escapes the workspace")

// dirWorkspace confines file access to a folder by resolving symlinks of the
// existing part of each path before use.
type dirWorkspace struct{ root string }

func (w dirWorkspace) resolve(rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%q: %w", rel, ErrOutside)
	}
	clean := filepath.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%q: %w", rel, ErrOutside)
	}
	root, err := filepath.EvalSymlinks(w.root)
	if err != nil {
		return "", err
	}
	abs := filepath.Join(root, clean)
	// Resolve the longest existing prefix: a symlink anywhere on the way
	// must still land inside the workspace.
	probe, rest := abs, ""
	for {
		real, err := filepath.EvalSymlinks(probe)
		if err == nil {
			full := filepath.Join(real, rest)
			if full != root && !strings.HasPrefix(full, root+string(filepath.Separator)) {
				return "", fmt.Errorf("%q: %w", rel, ErrOutside)
			}
			return full, nil
		}
		if !os.IsNotExist(err) {
			return "", fmt.Errorf("%q: %w", rel, err)
		}
		rest = filepath.Join(filepath.Base(probe), rest)
		probe = filepath.Dir(probe)
	}
}

func (w dirWorkspace) ReadFile(_, rel string) ([]byte, error) {
	p, err := w.resolve(rel)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

func (w dirWorkspace) WriteFile(_, rel string, data []byte) error {
	p, err := w.resolve(rel)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(p); err == nil {
		mode = fi.Mode().Perm()
	}
	return sessions.WriteFileAtomic(p, data, mode)
}

func (w dirWorkspace) List(_, rel string) ([]os.DirEntry, error) {
	if rel == "" {
		rel = "."
	}
	p, err := w.resolve(rel)
	if err != nil {
		return nil, err
	}
	return os.ReadDir(p)
}

func (w dirWorkspace) Protected(rel string) bool {
	c := filepath.Clean(rel)
	return c == ".atelier.toml" || c == sessions.StateDir || strings.HasPrefix(c, sessions.StateDir+"/")
}
