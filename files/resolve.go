package files

import (
	"errors"
	"fmt"
	"os"
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
	follow bool // follow a final symlink (read, write through a link)
	mkdirs bool // create missing intermediate directories
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
		closeFd(r.parent)
		r.owned = false
	}
}

// closeFd closes a descriptor this package opened to walk through or to
// read (a directory, a file being read or checked), or one nothing was
// written to yet. There is nothing to flush, and Linux releases the
// descriptor even when close reports an error, so there is nothing to act on.
func closeFd(fd int) { _ = unix.Close(fd) }

// closeFile is closeFd for a descriptor wrapped in an *os.File.
func closeFile(f *os.File) { _ = f.Close() }

type frame struct {
	fd   int
	name string
}

// walker is the state of one resolution: the directories descended so far
// (each an open descriptor) and the components still to go.
type walker struct {
	w     *Workspace
	stack []frame
	comps []string
	links int
	races int
	final string
	ended bool
}

// resolve walks p (the caller holds w.enter) from the root descriptor one
// component at a time. ".." pops to the directory it came from (never past
// the root), a symlink is read and its target spliced in (an absolute target
// must lie under the root), and every directory is opened with
// O_NOFOLLOW|O_DIRECTORY, so a component turned into a symlink between the
// check and the open is seen and checked again.
func (w *Workspace) resolve(p string, o resolveOpts) (*resolved, error) {
	rel, err := w.Rel(p)
	if err != nil {
		return nil, err
	}
	k := &walker{w: w, stack: []frame{{fd: w.rootFd}}, comps: splitComps(rel)}
	for len(k.comps) > 0 && !k.ended {
		c := k.comps[0]
		k.comps = k.comps[1:]
		if err := k.step(c, o); err != nil {
			k.closeFrom(1)
			return nil, err
		}
	}
	return k.result(), nil
}

// step resolves one component.
func (k *walker) step(c string, o resolveOpts) error {
	if c == ".." {
		if len(k.stack) == 1 {
			return &PathError{Err: ErrOutsideWorkspace, Detail: "\"..\" leaves the root"}
		}
		k.closeFrom(len(k.stack) - 1)
		return nil
	}
	last := len(k.comps) == 0
	top := k.stack[len(k.stack)-1]
	if last && !o.follow {
		k.end(c)
		return nil
	}
	var st unix.Stat_t
	err := unix.Fstatat(top.fd, c, &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case errors.Is(err, unix.ENOENT) && last:
		k.end(c)
		return nil
	case errors.Is(err, unix.ENOENT) && o.mkdirs:
		if err := unix.Mkdirat(top.fd, c, 0o777); err != nil && !errors.Is(err, unix.EEXIST) {
			return &PathError{Err: err, Detail: "create " + k.at(c)}
		}
		k.comps = append([]string{c}, k.comps...)
		return nil
	case err != nil:
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return k.follow(top.fd, c)
	case unix.S_IFDIR:
		if last {
			k.end(c)
			return nil
		}
		return k.descend(top.fd, c)
	default:
		if last {
			k.end(c)
			return nil
		}
		return &PathError{Err: ErrNotDir, Detail: k.at(c) + " is not a directory"}
	}
}

// follow splices the target of symlink c in place of it.
func (k *walker) follow(dirfd int, c string) error {
	k.links++
	if k.links > maxSymlinks {
		return &PathError{Err: ErrSymlinkLoop, Detail: "at " + k.at(c)}
	}
	target, err := readlinkat(dirfd, c)
	if err != nil {
		return err
	}
	tc := splitComps(target)
	if strings.HasPrefix(target, "/") {
		in, ok := k.w.inside(target)
		if !ok {
			return &PathError{Err: ErrOutsideWorkspace, Detail: fmt.Sprintf("symlink %s points to %s", k.at(c), target)}
		}
		k.closeFrom(1)
		tc = splitComps(in)
	}
	k.comps = append(tc, k.comps...)
	return nil
}

// descend opens directory c and pushes it; a directory swapped for
// something else since it was checked is looked at again.
func (k *walker) descend(dirfd int, c string) error {
	if k.w.hookResolved != nil {
		k.w.hookResolved(k.at(c))
	}
	fd, err := unix.Openat(dirfd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ENOENT) {
		k.races++
		if k.races > maxRaces {
			return &PathError{Err: ErrPathChanged, Detail: "at " + k.at(c)}
		}
		k.comps = append([]string{c}, k.comps...)
		return nil
	}
	if err != nil {
		return err
	}
	k.stack = append(k.stack, frame{fd: fd, name: c})
	return nil
}

func (k *walker) end(c string) {
	k.final, k.ended = c, true
}

// at names component c under the current directory, for error details.
func (k *walker) at(c string) string { return joinRel(stackRel(k.stack), c) }

// closeFrom closes and pops the frames from index i on (never the root).
func (k *walker) closeFrom(i int) {
	for _, f := range k.stack[i:] {
		closeFd(f.fd)
	}
	k.stack = k.stack[:i]
}

// result turns the walk's end into a parent descriptor and a name, closing
// every other frame. A path ending in a directory (reached through "..") is
// named from its parent.
func (k *walker) result() *resolved {
	if k.final == "" && len(k.stack) > 1 {
		top := k.stack[len(k.stack)-1]
		k.closeFrom(len(k.stack) - 1)
		k.final = top.name
	}
	n := len(k.stack)
	r := &resolved{parent: k.stack[n-1].fd, owned: n > 1, name: k.final}
	r.rel = joinRel(stackRel(k.stack), k.final)
	if n > 2 {
		for _, f := range k.stack[1 : n-1] {
			closeFd(f.fd)
		}
	}
	return r
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
