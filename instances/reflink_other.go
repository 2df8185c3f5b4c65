//go:build !linux

package instances

import (
	"errors"
	"os"
)

// clone is not available here: the caller copies.
func clone(out, in int) error { return errors.ErrUnsupported }

// fdStat returns a file's size, modification time (ns) and mode, here
// from its path (the file is ours, new and not yet shared).
func fdStat(_ int, path string) (size, mtime int64, mode uint32, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, 0, 0, err
	}
	return fi.Size(), fi.ModTime().UnixNano(), uint32(fi.Mode().Perm()), nil
}
