package files

import (
	"errors"
	"strconv"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames without replacing an existing destination
// (renameat2 RENAME_NOREPLACE), falling back to link+unlink on file systems
// without it.
func renameNoReplace(olddir int, oldname string, newdir int, newname string) error {
	err := unix.Renameat2(olddir, oldname, newdir, newname, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return linkUnlink(olddir, oldname, newdir, newname)
	}
	return err
}

// fdPath returns the path the kernel has for an open descriptor, or ok false
// where /proc is not mounted.
func fdPath(fd int) (string, bool) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil {
		return "", false
	}
	return string(buf[:n]), true
}
