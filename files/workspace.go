package files

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Workspace is an open workspace directory. Every operation resolves its path
// from a descriptor of the root held open for the Workspace's life, so a
// renamed root keeps working and nothing is ever looked up from the process's
// current directory. A Workspace is safe for concurrent use.
type Workspace struct {
	root   string // absolute, symlinks resolved
	given  string // absolute as given, when it differs from root
	rootFd int

	attr *Attribution

	mu     sync.RWMutex
	closed bool

	// hookResolved, set by tests only, runs after a path has been checked
	// and before it is used, to swap a symlink in at the worst moment.
	hookResolved func(rel string)
}

// Open opens the workspace rooted at dir. The Attribution records who
// writes what so a Watcher can tell; nil gets a fresh one.
func Open(dir string, attr *Attribution) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	fd, err := unix.Open(real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	if attr == nil {
		attr = NewAttribution(0)
	}
	w := &Workspace{root: real, rootFd: fd, attr: attr}
	if abs != real {
		w.given = abs
	}
	return w, nil
}

// Root returns the absolute path of the workspace with symlinks resolved.
func (w *Workspace) Root() string { return w.root }

// Attribution returns the record of who wrote what, shared with watchers.
func (w *Workspace) Attribution() *Attribution { return w.attr }

// Close releases the root descriptor; later operations fail with ErrClosed.
func (w *Workspace) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	return unix.Close(w.rootFd)
}

// Abs returns the host path of a workspace-relative path, resolving nothing.
func (w *Workspace) Abs(rel string) string {
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

// Rel turns a path given by a caller (relative to the root, or absolute
// inside it) into the workspace-relative form, lexically. It refuses an
// absolute path elsewhere and a path with a NUL byte; ".." is left for the
// resolver, which follows it component by component.
func (w *Workspace) Rel(p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", ErrInvalidPath
	}
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		return p, nil
	}
	if rel, ok := w.inside(p); ok {
		return rel, nil
	}
	return "", ErrOutsideWorkspace
}

// inside maps an absolute path under the root (as resolved or as given) to
// its relative form.
func (w *Workspace) inside(abs string) (string, bool) {
	c := filepath.ToSlash(filepath.Clean(abs))
	for _, r := range []string{w.root, w.given} {
		if r == "" {
			continue
		}
		r = filepath.ToSlash(r)
		if c == r {
			return "", true
		}
		if strings.HasPrefix(c, r+"/") {
			return c[len(r)+1:], true
		}
	}
	return "", false
}

// record notes that actor is about to change rel, for the watcher.
func (w *Workspace) record(actor, rel string) {
	if w.attr != nil && actor != "" {
		w.attr.Record(rel, actor, time.Now())
	}
}

// enter guards an operation against a concurrent Close; leave ends it.
func (w *Workspace) enter() error {
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return ErrClosed
	}
	return nil
}

func (w *Workspace) leave() { w.mu.RUnlock() }
