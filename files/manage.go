package files

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Mkdir creates the folder p names, and missing folders above it; it fails
// with fs.ErrExist if p already exists.
func (w *Workspace) Mkdir(actor, p string) error {
	const op = "mkdir"
	if err := w.enter(); err != nil {
		return pathErr(op, p, err)
	}
	defer w.leave()
	r, err := w.resolve(p, resolveOpts{mkdirs: true})
	if err != nil {
		return pathErr(op, p, err)
	}
	defer r.close()
	if r.name == "" {
		return pathErr(op, p, unix.EEXIST)
	}
	w.record(actor, r.rel)
	if err := unix.Mkdirat(r.parent, r.name, 0o777); err != nil {
		return pathErr(op, p, err)
	}
	return nil
}

// Rename moves what from names (a symlink itself, not its target) to to,
// creating missing folders above to. It never replaces: an existing to fails
// with fs.ErrExist.
func (w *Workspace) Rename(actor, from, to string) error {
	const op = "rename"
	if err := w.enter(); err != nil {
		return pathErr(op, from, err)
	}
	defer w.leave()
	src, err := w.resolve(from, resolveOpts{})
	if err != nil {
		return pathErr(op, from, err)
	}
	defer src.close()
	if src.name == "" {
		return pathErr(op, from, ErrRoot)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(src.parent, src.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return pathErr(op, from, err)
	}
	dst, err := w.resolve(to, resolveOpts{mkdirs: true})
	if err != nil {
		return pathErr(op, to, err)
	}
	defer dst.close()
	if dst.name == "" {
		return pathErr(op, to, ErrRoot)
	}
	w.record(actor, src.rel)
	w.record(actor, dst.rel)
	if err := renameNoReplace(src.parent, src.name, dst.parent, dst.name); err != nil {
		return &PathError{Op: op, Path: from, Detail: "to " + to, Err: err}
	}
	// The rename is done; like a write, it is only reported done once it
	// would survive a crash.
	for _, dir := range []int{src.parent, dst.parent} {
		if err := unix.Fsync(dir); err != nil {
			return &PathError{Op: op, Path: from, Detail: "to " + to + ": sync folder", Err: err}
		}
	}
	return nil
}

// Delete removes the file, symlink or folder (with everything in it) that p
// names. It never follows a symlink: deleting a link removes the link.
func (w *Workspace) Delete(actor, p string) error {
	const op = "delete"
	if err := w.enter(); err != nil {
		return pathErr(op, p, err)
	}
	defer w.leave()
	r, err := w.resolve(p, resolveOpts{})
	if err != nil {
		return pathErr(op, p, err)
	}
	defer r.close()
	if r.name == "" {
		return pathErr(op, p, ErrRoot)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(r.parent, r.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return pathErr(op, p, err)
	}
	w.record(actor, r.rel)
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		err = removeTree(r.parent, r.name)
	} else {
		err = unix.Unlinkat(r.parent, r.name, 0)
	}
	if err != nil {
		return pathErr(op, p, err)
	}
	return nil
}

// removeTree deletes the folder name in dirfd and its contents through
// descriptors, never following a symlink. Entries created meanwhile make the
// final rmdir fail with ENOTEMPTY; the folder is then emptied again.
func removeTree(dirfd int, name string) error {
	for attempt := 0; ; attempt++ {
		if err := emptyDir(dirfd, name); err != nil {
			return err
		}
		err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
		if !errors.Is(err, unix.ENOTEMPTY) || attempt == 3 {
			return err
		}
	}
}

func emptyDir(dirfd int, name string) error {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	defer closeFile(f)
	names, err := f.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		var st unix.Stat_t
		err := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil {
			if st.Mode&unix.S_IFMT == unix.S_IFDIR {
				err = removeTree(fd, n)
			} else {
				err = unix.Unlinkat(fd, n, 0)
			}
		}
		if err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	return nil
}
