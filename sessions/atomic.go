package sessions

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// WriteFileAtomic replaces path with data so that a reader or a crash sees
// the old content or the new, never a torn file: temporary file in the same
// folder (created with O_EXCL|O_NOFOLLOW), fsync, rename, fsync of the
// folder. Under a .state folder, the folders from .state down are opened
// without following a symbolic link; anywhere, a path that is a symbolic
// link or not a regular file is refused rather than replaced.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if f, err := stateFileAt(dir, name); err == nil {
		return f.writeAtomic(data, perm)
	}
	if !validName(name) {
		return fmt.Errorf("write %s: not a file name", path)
	}
	d, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, &os.PathError{Op: "open", Path: dir, Err: err})
	}
	defer closeFd(d)
	return writeAtomicAt(d, filepath.Clean(dir), name, data, perm)
}

// closeRead closes a file opened only to read: nothing was written through
// it, so Close has nothing to report that the reads did not.
func closeRead(f *os.File) { _ = f.Close() }
