package sessions

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A workspace's .state/ may come from someone else (a cloned repository, an
// unpacked tarball), so nothing under it is followed: every folder from
// .state down is opened with O_DIRECTORY|O_NOFOLLOW and every file relative
// to its folder's descriptor with O_NOFOLLOW, and a file that turns out to
// be a symbolic link, a pipe, a socket or a device is refused. A planted
// `controls.jsonl -> ~/.bashrc` is therefore never read, truncated or
// appended to, and an atomic replace creates its temporary file with
// O_EXCL|O_NOFOLLOW in the real folder. Only the workspace's own path (the
// part before .state) is followed: it is the user's.

// ErrUnsafeFile is wrapped by every refusal of a file or folder under
// .state/ that is a symbolic link or not a regular file (or, where a folder
// is expected, not a folder).
var ErrUnsafeFile = errors.New("refused: state files are never followed")

// ErrReadOnlyStore is wrapped by every write refused because the store was
// opened read-only (see Store.ReadOnly).
var ErrReadOnlyStore = errors.New("the session store is read-only")

// UnsafeFileError names a file or folder under .state/ that was refused,
// and what it is.
type UnsafeFileError struct {
	Path string // the refused path
	What string // what is there: "a symbolic link", "a named pipe", ...
}

// Error names the path and what it is.
func (e *UnsafeFileError) Error() string {
	return fmt.Sprintf("%s is %s: refused, state files are never followed", e.Path, e.What)
}

// Unwrap returns ErrUnsafeFile.
func (e *UnsafeFileError) Unwrap() error { return ErrUnsafeFile }

// describe says what a file of mode is, for UnsafeFileError.
func describe(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return "a symbolic link"
	case unix.S_IFIFO:
		return "a named pipe"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFDIR:
		return "a folder, not a file"
	case unix.S_IFREG:
		return "a file, not a folder"
	}
	return "a special file"
}

// OpenStateFile opens name in dir, a folder under a workspace's .state/,
// without following a symbolic link anywhere from .state down: dir's
// components from the last one named .state are each opened with
// O_NOFOLLOW, and name with O_NOFOLLOW relative to the folder. A symbolic
// link or a file that is not regular is refused with an *UnsafeFileError,
// before anything is read, truncated or written. flags and perm are those of
// os.OpenFile (O_CREATE creates a regular file; a dangling link is refused,
// not created through).
//
// It is for files the store does not keep itself (the lease, the run log);
// dir must lie under a .state folder.
func OpenStateFile(dir, name string, flags int, perm os.FileMode) (*os.File, error) {
	f, err := stateFileAt(dir, name)
	if err != nil {
		return nil, err
	}
	return f.open(flags, perm)
}

// stateFile is one file under .state/: found from the workspace through
// folders opened without following symbolic links.
type stateFile struct {
	root string   // the workspace: the user's own path, followed as given
	dirs []string // the folders from .state down
	name string
	// ro, when set, says why the store is read-only: opens for writing
	// and atomic replaces fail with it.
	ro error
}

// stateFileAt splits dir at its last .state component.
func stateFileAt(dir, name string) (stateFile, error) {
	if !validName(name) {
		return stateFile{}, fmt.Errorf("open %s in %s: not a file name", name, dir)
	}
	comps := strings.Split(filepath.ToSlash(filepath.Clean(dir)), "/")
	for i := len(comps) - 1; i >= 0; i-- {
		if comps[i] != StateDir {
			continue
		}
		root := strings.Join(comps[:i], "/")
		switch {
		case root == "" && i > 0:
			root = "/"
		case root == "":
			root = "."
		}
		return stateFile{root: filepath.FromSlash(root), dirs: comps[i:], name: name}, nil
	}
	return stateFile{}, fmt.Errorf("open %s: %s is not under a %s folder", name, dir, StateDir)
}

// validName reports whether name is one plain path component.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`) && !strings.ContainsRune(name, 0)
}

func (f stateFile) dirPath() string {
	return filepath.Join(append([]string{f.root}, f.dirs...)...)
}

func (f stateFile) path() string { return filepath.Join(f.dirPath(), f.name) }

// writeFlags are the open flags that change a file.
const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND

// open opens the file with flags (those of os.OpenFile).
func (f stateFile) open(flags int, perm os.FileMode) (*os.File, error) {
	if f.ro != nil && flags&writeFlags != 0 {
		return nil, fmt.Errorf("open %s: %w", f.path(), f.ro)
	}
	d, err := openDirs(f.root, f.dirs)
	if err != nil {
		return nil, err
	}
	defer closeFd(d)
	return openFileAt(d, f.dirPath(), f.name, flags, perm)
}

// writeAtomic replaces the file with data (see writeAtomicAt).
func (f stateFile) writeAtomic(data []byte, perm os.FileMode) error {
	if f.ro != nil {
		return fmt.Errorf("write %s: %w", f.path(), f.ro)
	}
	d, err := openDirs(f.root, f.dirs)
	if err != nil {
		return fmt.Errorf("write %s: %w", f.path(), err)
	}
	defer closeFd(d)
	return writeAtomicAt(d, f.dirPath(), f.name, data, perm)
}

// closeFd closes a descriptor opened to walk, list or sync a folder:
// nothing was written through it, so there is nothing to report.
func closeFd(fd int) { _ = unix.Close(fd) }

// modeAt returns the mode of name in dirfd without following a symbolic
// link; ok is false when there is nothing there (or it cannot be told).
func modeAt(dirfd int, name string) (mode uint32, ok bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, false
	}
	return st.Mode, true
}

// openDirs opens root (followed: it is the user's path) and then each of
// dirs in turn without following a symbolic link.
func openDirs(root string, dirs []string) (int, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: root, Err: err}
	}
	p := root
	for _, c := range dirs {
		next, err := openDirAt(fd, p, c)
		closeFd(fd)
		if err != nil {
			return -1, err
		}
		fd, p = next, filepath.Join(p, c)
	}
	return fd, nil
}

// openDirAt opens folder name in dirfd (at path parent) without following a
// symbolic link; anything but a folder is refused.
func openDirAt(dirfd int, parent, name string) (int, error) {
	p := filepath.Join(parent, name)
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		return fd, nil
	}
	if mode, ok := modeAt(dirfd, name); ok && mode&unix.S_IFMT != unix.S_IFDIR {
		return -1, &UnsafeFileError{Path: p, What: describe(mode)}
	}
	return -1, &os.PathError{Op: "open", Path: p, Err: err}
}

// openFileAt opens regular file name in dirfd (at path dir) with flags,
// never through a symbolic link. What is there is looked at before the open
// (so a device or a pipe is never opened) and the open file again after it
// (so one swapped in meanwhile is closed unused).
func openFileAt(dirfd int, dir, name string, flags int, perm os.FileMode) (*os.File, error) {
	p := filepath.Join(dir, name)
	if mode, ok := modeAt(dirfd, name); ok && mode&unix.S_IFMT != unix.S_IFREG {
		return nil, &UnsafeFileError{Path: p, What: describe(mode)}
	}
	fd, err := unix.Openat(dirfd, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, uint32(perm.Perm()))
	if err != nil {
		if mode, ok := modeAt(dirfd, name); ok && mode&unix.S_IFMT != unix.S_IFREG {
			return nil, &UnsafeFileError{Path: p, What: describe(mode)}
		}
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		closeFd(fd)
		return nil, &os.PathError{Op: "stat", Path: p, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		closeFd(fd)
		return nil, &UnsafeFileError{Path: p, What: describe(st.Mode)}
	}
	// O_NONBLOCK only kept a pipe from blocking the open; a regular file
	// ignores it, but the descriptor should not carry it.
	if err := unix.SetNonblock(fd, false); err != nil {
		closeFd(fd)
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	return os.NewFile(uintptr(fd), p), nil
}

// writeAtomicAt replaces name in dirfd (at path dir) with data so that a
// reader or a crash sees the old content or the new, never a torn file: a
// temporary file created with O_EXCL|O_NOFOLLOW in the same folder, fsync,
// rename, fsync of the folder. A name that is there but is not a regular
// file (a symbolic link, a pipe) is refused rather than replaced.
func writeAtomicAt(dirfd int, dir, name string, data []byte, perm os.FileMode) error {
	p := filepath.Join(dir, name)
	if mode, ok := modeAt(dirfd, name); ok && mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("write %s: %w", p, &UnsafeFileError{Path: p, What: describe(mode)})
	}
	var tmp string
	fd := -1
	for tries := 0; fd < 0; tries++ {
		tmp = "." + name + ".tmp" + strconv.FormatUint(uint64(rand.Uint32()), 10)
		var err error
		fd, err = unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) && tries < 100 {
			continue
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, tmp))
	fail := func(err error) error {
		// Best effort: the temporary file is abandoned and err says why.
		_ = f.Close()
		_ = unix.Unlinkat(dirfd, tmp, 0)
		return fmt.Errorf("write %s: %w", p, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0) // best effort, as in fail
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := unix.Renameat(dirfd, tmp, dirfd, name); err != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0) // best effort, as in fail
		return fmt.Errorf("write %s: %w", p, err)
	}
	if err := unix.Fsync(dirfd); err != nil {
		return fmt.Errorf("write %s: sync folder: %w", p, err)
	}
	return nil
}

// removeAllAt removes name in dirfd (at path dir) and, when it is a folder,
// everything under it, never following a symbolic link (a link is removed,
// not its target).
func removeAllAt(dirfd int, dir, name string) error {
	mode, ok := modeAt(dirfd, name)
	if !ok {
		return nil
	}
	if mode&unix.S_IFMT != unix.S_IFDIR {
		if err := unix.Unlinkat(dirfd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return &os.PathError{Op: "remove", Path: filepath.Join(dir, name), Err: err}
		}
		return nil
	}
	fd, err := openDirAt(dirfd, dir, name)
	if err != nil {
		return err
	}
	p := filepath.Join(dir, name)
	names, err := readDirNames(fd, p)
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for _, n := range names {
		if err := removeAllAt(fd, p, n); err != nil {
			errs = append(errs, err)
		}
	}
	closeFd(fd)
	if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		errs = append(errs, &os.PathError{Op: "remove", Path: p, Err: err})
	}
	return errors.Join(errs...)
}

// readDir lists the folder open at fd (path p), leaving fd open.
func readDir(fd int, p string) ([]os.DirEntry, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, &os.PathError{Op: "readdir", Path: p, Err: err}
	}
	d := os.NewFile(uintptr(dup), p)
	// A duplicate shares the offset: list from the start whoever read before.
	if _, err := d.Seek(0, 0); err != nil {
		_ = d.Close() // opened only to list: nothing to flush
		return nil, err
	}
	ents, err := d.ReadDir(-1)
	_ = d.Close() // opened only to list: nothing to flush
	return ents, err
}

// readDirNames is readDir's names.
func readDirNames(fd int, p string) ([]string, error) {
	ents, err := readDir(fd, p)
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, err
}
