package files

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// TempPrefix starts the names of the temporary files atomic writes use; the
// watcher never reports them.
const TempPrefix = ".atelier-tmp-"

// errRetry asks a writer to resolve its path again: the final name turned
// into a symlink after it was checked.
var errRetry = errors.New("retry")

// WriteFile replaces (or creates) the file p names with data, atomically:
// readers see the old content or the new one, never a torn mix, even if the
// process is killed. Missing parent folders are created, an existing file's
// mode (and, where allowed, owner) is kept, and a symlink inside the
// workspace is written through to its target.
func (w *Workspace) WriteFile(actor, p string, data []byte) error {
	return w.write("write", actor, p, bytes.NewReader(data), false)
}

// WriteFrom is WriteFile streaming from r.
func (w *Workspace) WriteFrom(actor, p string, r io.Reader) error {
	return w.write("write", actor, p, r, false)
}

// CreateFile creates the file p names with data, failing with fs.ErrExist
// if anything is already there.
func (w *Workspace) CreateFile(actor, p string, data []byte) error {
	return w.write("create", actor, p, bytes.NewReader(data), true)
}

func (w *Workspace) write(op, actor, p string, src io.Reader, exclusive bool) error {
	if err := w.enter(); err != nil {
		return pathErr(op, p, err)
	}
	defer w.leave()
	for race := 0; race <= maxRaces; race++ {
		r, err := w.resolve(p, resolveOpts{follow: !exclusive, mkdirs: true})
		if err != nil {
			return pathErr(op, p, err)
		}
		if r.name == "" {
			r.close()
			return pathErr(op, p, ErrRoot)
		}
		if w.hookResolved != nil {
			w.hookResolved(r.rel)
		}
		w.record(actor, r.rel)
		err = w.writeAtomic(r.parent, r.name, src, exclusive)
		r.close()
		if errors.Is(err, errRetry) {
			continue
		}
		if err != nil {
			return pathErr(op, p, err)
		}
		return nil
	}
	return pathErr(op, p, ErrPathChanged)
}

// writeAtomic writes src to name in dirfd through a temporary file in the
// same directory: write, fsync, rename over name (or, exclusive, rename that
// refuses to replace), fsync the directory.
func (w *Workspace) writeAtomic(dirfd int, name string, src io.Reader, exclusive bool) error {
	var st unix.Stat_t
	existing := false
	switch err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil:
		existing = true
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
		case unix.S_IFDIR:
			return ErrIsDir
		case unix.S_IFLNK:
			if exclusive {
				return unix.EEXIST
			}
			return errRetry
		default:
			return ErrNotRegular
		}
		if exclusive {
			return unix.EEXIST
		}
	case !errors.Is(err, unix.ENOENT):
		return err
	}
	tmp := TempPrefix + randomHex(8)
	fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o666)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	done := false
	defer func() {
		if !done {
			// Best effort: the write failed and its error is returned; the
			// temporary file is never used (the watcher ignores a leftover
			// by its TempPrefix name).
			_ = f.Close()
			_ = unix.Unlinkat(dirfd, tmp, 0)
		}
	}()
	if err := w.verifyFd(fd); err != nil {
		return err
	}
	if existing {
		if err := unix.Fchmod(fd, st.Mode&0o7777); err != nil {
			return err
		}
		// Keep the owner where we may (running as root for another user);
		// an unprivileged writer cannot and need not.
		_ = unix.Fchown(fd, int(st.Uid), int(st.Gid))
	}
	if _, err := io.Copy(f, src); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if exclusive {
		err = renameNoReplace(dirfd, tmp, dirfd, name)
	} else {
		err = unix.Renameat(dirfd, tmp, dirfd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0) // best effort, as above
		done = true
		return err
	}
	done = true
	return unix.Fsync(dirfd)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// isTemp reports whether a base name is an atomic write's temporary file.
func isTemp(name string) bool { return strings.HasPrefix(name, TempPrefix) }
