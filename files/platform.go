package files

import (
	"errors"

	"golang.org/x/sys/unix"
)

// linkUnlink emulates a no-replace rename: a hard link fails on an existing
// name. Directories cannot be linked; they are renamed after a check.
func linkUnlink(olddir int, oldname string, newdir int, newname string) error {
	err := unix.Linkat(olddir, oldname, newdir, newname, 0)
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EISDIR) {
		var st unix.Stat_t
		if unix.Fstatat(newdir, newname, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			return unix.EEXIST
		}
		return unix.Renameat(olddir, oldname, newdir, newname)
	}
	if err != nil {
		return err
	}
	return unix.Unlinkat(olddir, oldname, 0)
}
