package files

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// maxSymlinks bounds the symlink hops of one resolution, as the kernel does.
const maxSymlinks = 40

// maxRaces bounds how often a component may change under the resolver before
// it gives up with ErrPathChanged.
const maxRaces = 8

// resolveOpts says how to treat the last component.
type resolveOpts struct {
	follow  bool // follow a final symlink (read, write through a link)
	mkdirs  bool // create missing intermediate directories
	mkdirOp bool // called by Mkdir: intermediate creation allowed as well
}

// resolved is a path reduced to a directory descriptor and one name in it.
// The descriptor was reached from the root by real directories only, each
// opened with O_NOFOLLOW, so a symlink swapped in later cannot redirect it.
type resolved struct {
	parent int    // descriptor of the parent directory
	owned  bool   // parent must be closed (false for the root descriptor)
	name   string // last component; "" when the path is the root itself
	rel    string // canonical workspace-relative path ("" for the root)
}

func (r *resolved) close() {
	if r.owned {
		unix.Close(r.parent)
		r.owned = false
	}
}

type frame struct {
	fd   int
	name string
}

// resolve walks p (the caller holds w.enter) from the root descriptor one component at a time. ".."
// pops to the directory it came from (never past the root), a symlink is
// read and its target spliced in (an absolute target must lie under the
// root), and every directory is opened with O_NOFOLLOW|O_DIRECTORY, so a
// component turned into a symlink between the check and the open is seen
// and checked again.
func (w *Workspace) resolve(p string, o resolveOpts) (*resolved, error) {
	rel, err := w.Rel(p)
	if err != nil {
		return nil, err
	}
	comps := splitComps(rel)
	stack := []frame{{fd: w.rootFd}}
	fail := func(err error, detail string) (*resolved, error) {
		for _, f := range stack[1:] {
			unix.Close(f.fd)
		}
		if detail != "" {
			return nil, &PathError{Err: err, Detail: detail}
		}
		return nil, err
	}
	links, races := 0, 0
	final := ""
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		if c == ".." {
			if len(stack) == 1 {
				return fail(ErrOutsideWorkspace, "\"..\" leaves the root")
			}
			unix.Close(stack[len(stack)-1].fd)
			stack = stack[:len(stack)-1]
			continue
		}
		last := len(comps) == 0
		top := stack[len(stack)-1]
		if last && !o.follow {
			final = c
			break
		}
		var st unix.Stat_t
		err := unix.Fstatat(top.fd, c, &st, unix.AT_SYMLINK_NOFOLLOW)
		if errors.Is(err, unix.ENOENT) {
			if last {
				final = c
				break
			}
			if !o.mkdirs {
				return fail(err, "")
			}
			if err := unix.Mkdirat(top.fd, c, 0o777); err != nil && !errors.Is(err, unix.EEXIST) {
				return fail(err, "create "+joinRel(stackRel(stack), c))
			}
			comps = append([]string{c}, comps...)
			continue
		}
		if err != nil {
			return fail(err, "")
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			links++
			if links > maxSymlinks {
				return fail(ErrSymlinkLoop, "at "+joinRel(stackRel(stack), c))
			}
			target, err := readlinkat(top.fd, c)
			if err != nil {
				return fail(err, "")
			}
			tc := splitComps(target)
			if strings.HasPrefix(target, "/") {
				in, ok := w.inside(target)
				if !ok {
					return fail(ErrOutsideWorkspace, fmt.Sprintf("symlink %s points to %s", joinRel(stackRel(stack), c), target))
				}
				for _, f := range stack[1:] {
					unix.Close(f.fd)
				}
				stack = stack[:1]
				tc = splitComps(in)
			}
			comps = append(tc, comps...)
		case unix.S_IFDIR:
			if last {
				final = c
				break
			}
			if w.hookResolved != nil {
				w.hookResolved(joinRel(stackRel(stack), c))
			}
			fd, err := unix.Openat(top.fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ENOENT) {
				races++
				if races > maxRaces {
					return fail(ErrPathChanged, "at "+joinRel(stackRel(stack), c))
				}
				comps = append([]string{c}, comps...)
				continue
			}
			if err != nil {
				return fail(err, "")
			}
			stack = append(stack, frame{fd: fd, name: c})
		default:
			if last {
				final = c
				break
			}
			return fail(ErrNotDir, joinRel(stackRel(stack), c)+" is not a directory")
		}
	}
	if final == "" && len(stack) > 1 {
		// The path ends in a directory reached through "..": name it from its
		// parent.
		top := stack[len(stack)-1]
		unix.Close(top.fd)
		stack = stack[:len(stack)-1]
		final = top.name
	}
	r := &resolved{parent: stack[len(stack)-1].fd, name: final}
	r.owned = len(stack) > 1
	if len(stack) > 2 {
		for _, f := range stack[1 : len(stack)-1] {
			unix.Close(f.fd)
		}
	}
	r.rel = joinRel(stackRel(stack), final)
	if len(stack) == 1 {
		r.parent = w.rootFd
	}
	return r, nil
}

func stackRel(stack []frame) string {
	if len(stack) <= 1 {
		return ""
	}
	names := make([]string, 0, len(stack)-1)
	for _, f := range stack[1:] {
		names = append(names, f.name)
	}
	return strings.Join(names, "/")
}

func joinRel(dir, name string) string {
	switch {
	case dir == "":
		return name
	case name == "":
		return dir
	}
	return dir + "/" + name
}

// splitComps splits a slash path into its components, dropping empty and "."
// ones but keeping "..", which only the resolver may interpret.
func splitComps(p string) []string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// cleanRel normalises a relative path lexically, for keys and display.
func cleanRel(p string) string {
	c := path.Clean("/" + p)[1:]
	return c
}

func readlinkat(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}
