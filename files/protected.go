package files

import (
	"errors"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Names of the protected paths: the engine may write them, an agent's tool
// only with an explicit approval from a person, whatever the approval policy
// and whatever the session's grants.
const (
	// ConfigFile is the workspace's configuration (agents, policies, URLs).
	ConfigFile = ".atelier.toml"
	// StateDir holds the engine's sessions, history and locks.
	StateDir = ".state"
	// AtelierDir holds the workspace's workflows.
	AtelierDir = ".atelier"
	// GitDir is a git repository's folder: its hooks and config run code
	// on the operator's machine. Protected wherever it is in the workspace.
	GitDir = ".git"
)

// IsProtected reports whether the workspace-relative path rel names a
// protected path once normalised lexically ("./.state/x" and "a/../.state"
// are caught): .atelier.toml, anything under .state/ or .atelier/, or
// anything under a .git folder. It cannot see symlinks, so it never decides
// alone: Workspace.ProtectedPath, which the engine asks, also resolves the
// path the way a write would. Names compare as the platform's file systems
// usually do (case-sensitively on Linux, ignoring case elsewhere).
func IsProtected(rel string) bool {
	rel = strings.ReplaceAll(rel, "\\", "/")
	c := path.Clean("/" + rel)[1:]
	if c == "" {
		return false
	}
	comps := strings.Split(c, "/")
	switch first := comps[0]; {
	case sameName(first, ConfigFile), sameName(first, StateDir), sameName(first, AtelierDir):
		return true
	}
	for _, name := range comps {
		if sameName(name, GitDir) {
			return true
		}
	}
	return false
}

// ProtectedPath is the one verdict on whether writing p needs a person. p
// is relative to the workspace root or absolute, as an agent gives it. It is
// resolved exactly as the workspace's own writes resolve it (symlinks
// followed through the confined resolver, a part that does not exist yet
// standing for the folder the write would create), and also as the
// operating system resolves it for an agent CLI that writes on its own, and
// as written, cleaned lexically: p is protected when any of these names a
// protected path (see IsProtected). rel is the canonical workspace-relative
// path the workspace's writes would reach ("" when they cannot reach one).
//
// When p cannot be resolved for a reason that would not also stop the write
// (a directory that cannot be searched, a path that kept changing), the
// verdict errs on the side of asking: protected is true, with the error.
// A path outside the workspace is not protected (the workspace refuses to
// write it), unless some reading of it lands on a protected path.
func (w *Workspace) ProtectedPath(p string) (rel string, protected bool, err error) {
	t, err := w.reach(p)
	for _, n := range t.names() {
		if IsProtected(n) {
			protected = true
		}
	}
	if err != nil && !protected && !writeFailsToo(err) {
		protected = true
	}
	return t.rel, protected, err
}

// Reaches returns the workspace-relative paths p may stand for, without
// duplicates: first the canonical path the workspace's own file operations
// reach (when they reach one), then what the operating system reaches for a
// program that opens p itself, then p as written, cleaned lexically. A
// reading that leaves the workspace is left out. The error is that of the
// first reading, which the workspace's own operations would meet.
func (w *Workspace) Reaches(p string) ([]string, error) {
	t, err := w.reach(p)
	return t.names(), err
}

// writeFailsToo reports whether a resolution error would also stop the
// workspace's own write, so that a path is not protected by it.
func writeFailsToo(err error) bool {
	for _, e := range []error{ErrOutsideWorkspace, ErrInvalidPath, ErrNotDir, ErrSymlinkLoop} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// target is what reach found: the readings of one path.
type target struct {
	rel    string // as the workspace's own operations resolve it
	direct string // as the operating system resolves it
	named  string // as written, cleaned lexically
}

func (t target) names() []string {
	var out []string
	for _, n := range []string{t.rel, t.direct, t.named} {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// reach resolves p in its three readings (see target).
func (w *Workspace) reach(p string) (target, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return target{}, &PathError{Op: "resolve", Path: p, Err: ErrInvalidPath}
	}
	if err := w.enter(); err != nil {
		return target{}, &PathError{Op: "resolve", Path: p, Err: err}
	}
	defer w.leave()
	slash := filepath.ToSlash(p)
	abs := slash
	if !strings.HasPrefix(slash, "/") {
		abs = w.root + "/" + slash
	}
	var t target
	if named, ok := w.inside(abs); ok {
		t.named = named
	}
	if in, ok := w.viaHost(abs); ok {
		if d, err := w.walkVirtual(in); err == nil {
			t.direct = d
		}
	}
	rel, err := w.Rel(p)
	if err == nil {
		t.rel, err = w.walkVirtual(rel)
	}
	if err != nil {
		return t, pathErr("resolve", p, err)
	}
	return t, nil
}

// walkVirtual resolves rel (the caller holds w.enter) as a write resolves
// it, component by component from the root descriptor with the resolver's
// own steps, but creates nothing: a component that does not exist stands
// for the folder the write would create, so a ".." after it comes back
// where the write would, and whatever follows is looked up again. It
// returns the canonical workspace-relative path.
func (w *Workspace) walkVirtual(rel string) (string, error) {
	k := &walker{w: w, stack: []frame{{fd: w.rootFd}}, comps: splitComps(rel)}
	defer k.closeFrom(1)
	var virt []string // components that do not exist (yet), under the stack
	for len(k.comps) > 0 {
		c := k.comps[0]
		k.comps = k.comps[1:]
		switch {
		case c == ".." && len(virt) > 0:
			virt = virt[:len(virt)-1]
			continue
		case c == "..":
			if len(k.stack) == 1 {
				return "", &PathError{Err: ErrOutsideWorkspace, Detail: "\"..\" leaves the root"}
			}
			k.closeFrom(len(k.stack) - 1)
			continue
		case len(virt) > 0:
			virt = append(virt, c)
			continue
		}
		top := k.stack[len(k.stack)-1]
		var st unix.Stat_t
		err := unix.Fstatat(top.fd, c, &st, unix.AT_SYMLINK_NOFOLLOW)
		switch {
		case errors.Is(err, unix.ENOENT):
			virt = append(virt, c)
			continue
		case err != nil:
			return "", err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			err = k.follow(top.fd, c)
		case unix.S_IFDIR:
			err = k.descend(top.fd, c)
		default:
			if len(k.comps) > 0 {
				err = &PathError{Err: ErrNotDir, Detail: k.at(c) + " is not a directory"}
			}
			virt = append(virt, c)
		}
		if err != nil {
			return "", err
		}
	}
	return joinRel(stackRel(k.stack), strings.Join(virt, "/")), nil
}

// viaHost resolves the absolute host path abs as the operating system
// would for a program that opens it (an agent CLI writing on its own): the
// longest part of it that exists, symlinks and ".." taken in order, then
// the rest as written. It returns the workspace-relative form when that
// lands in the workspace.
func (w *Workspace) viaHost(abs string) (string, bool) {
	comps := strings.Split(abs, "/")
	for i := len(comps); i > 1; i-- {
		head := strings.Join(comps[:i], "/")
		if head == "" {
			break
		}
		real, err := filepath.EvalSymlinks(head)
		if err != nil {
			continue
		}
		in, ok := w.inside(real)
		if !ok {
			return "", false
		}
		return joinRel(in, strings.Join(comps[i:], "/")), true
	}
	return "", false
}
