package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// CopyStats sums up an Upload or a Download.
type CopyStats struct {
	Files, Dirs int
	Bytes       int64
	// Skipped lists what was not copied: symlinks (never followed, never
	// recreated) and special files, as paths relative to the copy's top.
	Skipped []string
}

// Upload copies the host file or folder at host into the workspace at p.
// Nothing already at p is replaced (fs.ErrExist). Regular files are written
// atomically, folders recursively; symlinks and special files are skipped
// and listed in the stats.
func (w *Workspace) Upload(actor, host, p string) (CopyStats, error) {
	const op = "upload"
	var stats CopyStats
	fi, err := os.Lstat(host)
	if err != nil {
		return stats, pathErr(op, p, fmt.Errorf("source %s: %w", host, err))
	}
	switch {
	case fi.Mode().IsRegular():
		err = w.uploadFile(actor, host, p, &stats)
	case fi.IsDir():
		err = w.uploadDir(actor, host, p, &stats)
	default:
		err = fmt.Errorf("source %s: %w", host, ErrNotRegular)
	}
	if err != nil {
		return stats, pathErr(op, p, err)
	}
	return stats, nil
}

func (w *Workspace) uploadFile(actor, host, p string, stats *CopyStats) error {
	f, err := os.Open(host)
	if err != nil {
		return err
	}
	defer closeFile(f)
	cr := &countReader{r: f}
	if err := w.write("upload", actor, p, cr, true); err != nil {
		return err
	}
	stats.Files++
	stats.Bytes += cr.n
	return nil
}

func (w *Workspace) uploadDir(actor, host, p string, stats *CopyStats) error {
	if err := w.Mkdir(actor, p); err != nil {
		return err
	}
	stats.Dirs++
	ents, err := os.ReadDir(host)
	if err != nil {
		return err
	}
	for _, e := range ents {
		src, dst := filepath.Join(host, e.Name()), joinRel(p, e.Name())
		switch {
		case e.Type().IsRegular():
			err = w.uploadFile(actor, src, dst, stats)
		case e.IsDir():
			err = w.uploadDir(actor, src, dst, stats)
		default:
			stats.Skipped = append(stats.Skipped, dst)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Download copies the workspace file or folder p names out to the host path
// host, which must not exist. Inside a folder, symlinks are neither followed
// nor recreated: they are skipped and listed in the stats.
func (w *Workspace) Download(actor, p, host string) (CopyStats, error) {
	const op = "download"
	var stats CopyStats
	if err := w.enter(); err != nil {
		return stats, pathErr(op, p, err)
	}
	defer w.leave()
	if _, err := os.Lstat(host); err == nil {
		return stats, pathErr(op, p, fmt.Errorf("destination %s: %w", host, os.ErrExist))
	}
	fd, _, err := w.openResolved(p, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return stats, pathErr(op, p, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		closeFd(fd)
		return stats, pathErr(op, p, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		err = copyOut(fd, host, os.FileMode(st.Mode&0o777), &stats)
	case unix.S_IFDIR:
		err = downloadDir(fd, host, "", &stats)
	default:
		closeFd(fd)
		err = ErrNotRegular
	}
	if err != nil {
		return stats, pathErr(op, p, err)
	}
	return stats, nil
}

// copyOut copies the open file fd (which it closes) to a new host file.
func copyOut(fd int, host string, mode os.FileMode, stats *CopyStats) error {
	src := os.NewFile(uintptr(fd), host)
	defer closeFile(src)
	dst, err := os.OpenFile(host, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	n, err := io.Copy(dst, src)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(host) // best effort: drop the partial copy; err says why
		return err
	}
	stats.Files++
	stats.Bytes += n
	return nil
}

// downloadDir copies the open folder fd (which it closes) to a new host
// folder, walking by descriptors without following symlinks.
func downloadDir(fd int, host, rel string, stats *CopyStats) error {
	d := os.NewFile(uintptr(fd), host)
	defer closeFile(d)
	if err := os.Mkdir(host, 0o777); err != nil {
		return err
	}
	stats.Dirs++
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		child, err := unix.Openat(fd, n, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ELOOP) {
			stats.Skipped = append(stats.Skipped, joinRel(rel, n))
			continue
		}
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Fstat(child, &st); err != nil {
			closeFd(child)
			return err
		}
		dst := filepath.Join(host, n)
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			err = copyOut(child, dst, os.FileMode(st.Mode&0o777), stats)
		case unix.S_IFDIR:
			err = downloadDir(child, dst, joinRel(rel, n), stats)
		default:
			closeFd(child)
			stats.Skipped = append(stats.Skipped, joinRel(rel, n))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Copy copies the file or folder at from to to, both in the workspace, as
// a Download and then an Upload through a private temporary folder, so it
// goes through the same confinement, attribution and atomic writes as
// each. Nothing already at to is replaced (fs.ErrExist, before anything is
// read); symlinks are skipped and listed, from either half.
func (w *Workspace) Copy(actor, from, to string) (CopyStats, error) {
	if _, err := w.Stat(to); err == nil {
		return CopyStats{}, &PathError{Op: "copy", Path: to, Err: fs.ErrExist}
	}
	tmp, err := os.MkdirTemp("", "atelier-copy-")
	if err != nil {
		return CopyStats{}, err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // a leftover in the temp folder harms nothing
	out, err := w.Download(actor, from, filepath.Join(tmp, "copy"))
	if err != nil {
		return CopyStats{}, err
	}
	in, err := w.Upload(actor, filepath.Join(tmp, "copy"), to)
	if err != nil {
		return CopyStats{}, err
	}
	in.Skipped = append(out.Skipped, in.Skipped...)
	return in, nil
}
