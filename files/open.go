package files

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// openResolved opens the object p names with flags, following a final
// symlink that stays inside the workspace. The final open carries
// O_NOFOLLOW, so a symlink swapped in after the check fails the open and the
// path is resolved again; the descriptor is then checked once more against
// the kernel's own idea of its path. It returns the descriptor and the
// canonical relative path.
func (w *Workspace) openResolved(p string, flags int) (int, string, error) {
	for race := 0; ; race++ {
		if race > maxRaces {
			return -1, "", ErrPathChanged
		}
		r, err := w.resolve(p, resolveOpts{follow: true})
		if err != nil {
			return -1, "", err
		}
		if w.hookResolved != nil {
			w.hookResolved(r.rel)
		}
		name := r.name
		if name == "" {
			name = "."
		}
		fd, err := unix.Openat(r.parent, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		r.close()
		if errors.Is(err, unix.ELOOP) {
			continue // a symlink appeared after the check: resolve it again
		}
		if err != nil {
			return -1, "", err
		}
		if err := w.verifyFd(fd); err != nil {
			closeFd(fd)
			return -1, "", err
		}
		return fd, r.rel, nil
	}
}

// verifyFd checks, where the kernel says, that an open descriptor lies under
// the root: the last guard against a directory moved out of the workspace
// while it was being resolved.
func (w *Workspace) verifyFd(fd int) error {
	p, ok := fdPath(fd)
	if !ok {
		return nil
	}
	p = strings.TrimSuffix(p, " (deleted)")
	if p == w.root || strings.HasPrefix(p, w.root+"/") {
		return nil
	}
	return &PathError{Err: ErrOutsideWorkspace, Detail: "opened file is at " + p}
}
