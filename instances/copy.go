package instances

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// makeCopy makes a copy instance and records its manifest: every copied
// path with its mode and blob id, the base that Diff and Apply compare to.
func (m *Manager) makeCopy(in *Instance) error {
	if err := os.Mkdir(in.Path, 0o755); err != nil {
		return err
	}
	c := newCopier(!m.opt.NoReflink)
	w := newWalker(m.workspace, m.opt.Omit, false)
	w.include = m.include()
	err := w.walk(func(rel string, d fs.DirEntry, carried bool) error {
		src := filepath.Join(m.workspace, filepath.FromSlash(rel))
		dst := filepath.Join(in.Path, filepath.FromSlash(rel))
		if rel == ".git" {
			return c.tree(src, dst)
		}
		if carried {
			// Ignored in the copy too: out of the manifest, so never
			// diffed or applied.
			return c.entry(src, dst, "", d)
		}
		return c.entry(src, dst, rel, d)
	})
	if cerr := c.wait(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return writeManifest(m.manifestPath(in.ID), c.man)
}

// copier copies files with a few workers (copying is bound by the disk's
// latency, not the CPU) and collects the manifest.
type copier struct {
	reflink bool
	jobs    chan copyJob
	wg      sync.WaitGroup
	mu      sync.Mutex
	err     error
	man     []manifestEntry
	dirs    []dirMode // folders whose mode is set once their files are in
}

type copyJob struct {
	src, dst, rel string // rel "" when the file is not recorded
}

type dirMode struct {
	path string
	mode fs.FileMode
}

func newCopier(reflink bool) *copier {
	c := &copier{reflink: reflink, jobs: make(chan copyJob, 256)}
	for range max(4, 2*runtime.NumCPU()) {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for j := range c.jobs {
				c.file(j)
			}
		}()
	}
	return c
}

func (c *copier) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
}

func (c *copier) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// entry copies one walked entry: a folder is made (its files follow), a
// file queued, a symbolic link recreated as the same link.
func (c *copier) entry(src, dst, rel string, d fs.DirEntry) error {
	if err := c.failed(); err != nil {
		return err
	}
	switch {
	case d.IsDir():
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		c.dirs = append(c.dirs, dirMode{dst, fi.Mode().Perm()})
	case d.Type()&fs.ModeSymlink != 0:
		t, err := os.Readlink(src)
		if err != nil {
			return err
		}
		if err := os.Symlink(t, dst); err != nil {
			return err
		}
		if rel != "" {
			e, err := statEntry(dst, rel, []byte(t), modeSymlink)
			if err != nil {
				return err
			}
			c.mu.Lock()
			c.man = append(c.man, e)
			c.mu.Unlock()
		}
	case d.Type().IsRegular():
		c.jobs <- copyJob{src, dst, rel}
	}
	return nil // sockets, fifos, devices: not content
}

// tree copies a folder whole, without the ignore rules and unrecorded
// (.git of a copy: the agent may commit in its own repository).
func (c *copier) tree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return c.entry(p, filepath.Join(dst, r), "", d)
	})
}

// wait finishes the queued files, then gives the folders their modes.
func (c *copier) wait() error {
	close(c.jobs)
	c.wg.Wait()
	if c.err != nil {
		return c.err
	}
	for i := len(c.dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(c.dirs[i].path, c.dirs[i].mode); err != nil {
			return err
		}
	}
	return nil
}

func (c *copier) file(j copyJob) {
	var e *manifestEntry
	if j.rel != "" {
		e = &manifestEntry{Path: j.rel}
	}
	if err := copyEntry(j.src, j.dst, c.reflink, e); err != nil {
		c.fail(fmt.Errorf("copy %s: %w", j.src, err))
		return
	}
	if e != nil {
		c.mu.Lock()
		c.man = append(c.man, *e)
		c.mu.Unlock()
	}
}

// copyEntry copies the regular file src to the new file dst with its
// permissions, cloning it where the filesystem can (reflink) and copying
// otherwise. With e, it records dst's mode, size, time and blob id.
// It works on descriptors, not os.File: an os.File costs six more system
// calls a file (poller registration), a third of a copy's time.
func copyEntry(src, dst string, reflink bool, e *manifestEntry) error {
	in, err := unix.Open(src, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: src, Err: err}
	}
	defer func() { _ = unix.Close(in) }() // read-only
	var st unix.Stat_t
	if err := unix.Fstat(in, &st); err != nil {
		return &os.PathError{Op: "stat", Path: src, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s: not a regular file", src)
	}
	perm := uint32(st.Mode & 0o777)
	flags := unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW | unix.O_CLOEXEC
	out, err := unix.Open(dst, flags, perm)
	if errors.Is(err, unix.ENOENT) { // a carried file whose folder is not in the instance yet
		if err = os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
			out, err = unix.Open(dst, flags, perm)
		}
	}
	if err != nil {
		return &os.PathError{Op: "create", Path: dst, Err: err}
	}
	werr := fill(out, in, int64(st.Size), reflink, e)
	var size, mtime int64
	var mode uint32
	if werr == nil {
		size, mtime, mode, werr = fdStat(out, dst)
	}
	if werr == nil && mode&0o777 != perm {
		werr = unix.Fchmod(out, perm) // the umask cut bits
	}
	if err := unix.Close(out); werr == nil {
		werr = err
	}
	if werr != nil {
		return &os.PathError{Op: "copy", Path: dst, Err: werr}
	}
	if e != nil {
		e.Mode = modeFile
		if perm&0o111 != 0 {
			e.Mode = modeExec
		}
		e.Size, e.MTime = size, mtime
	}
	return nil
}

// bufs holds the copy buffers of the workers.
var bufs = sync.Pool{New: func() any { b := make([]byte, 128<<10); return &b }}

// fill writes in's content to out and, with e, its blob id, streaming (a
// large file is never held in memory).
func fill(out, in int, size int64, reflink bool, e *manifestEntry) error {
	cloned := reflink && clone(out, in) == nil
	if cloned && e == nil {
		return nil
	}
	var h hash.Hash
	if e != nil {
		h = sha1.New()
		fmt.Fprintf(h, "blob %d\x00", size)
	}
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	buf := *bp
	var n int64
	for {
		r, err := unix.Read(in, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if r == 0 {
			break
		}
		n += int64(r)
		if h != nil {
			h.Write(buf[:r])
		}
		if !cloned {
			if err := writeAll(out, buf[:r]); err != nil {
				return err
			}
		}
	}
	if n != size {
		return fmt.Errorf("read %d bytes of %d: the file changed while it was copied", n, size)
	}
	if e != nil {
		e.ID = hex.EncodeToString(h.Sum(nil))
	}
	return nil
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		w, err := unix.Write(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		b = b[w:]
	}
	return nil
}
