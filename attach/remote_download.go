package attach

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/files"
)

// Download copies a file or a folder of the host's workspace to host, a
// path on this machine where nothing is yet, as files.Workspace.Download
// does in-process: a folder comes as the host's tar archive (symlinks and
// special files left out by the host, counted as skipped) and is unpacked
// under host; what a failure left half-written is removed.
func (rf *RemoteFiles) Download(_ string, p, host string) (st files.CopyStats, err error) {
	ctx, cancel := rf.call()
	defer cancel()
	if _, err := os.Lstat(host); err == nil {
		return st, fmt.Errorf("download %s: %s: %w", p, host, os.ErrExist)
	}
	_, err = rf.f.Tree(ctx, client.TreeQuery{Path: p, Limit: 1})
	var prob *client.Problem
	isFile := errors.As(err, &prob) && prob.Code == client.CodeNotADirectory
	if err != nil && !isFile {
		return st, remotePathErr("download", p, err)
	}
	defer func() {
		if err != nil {
			// Half a copy is no copy; what is left of it when it cannot be
			// removed is said beside the error.
			err = errors.Join(err, os.RemoveAll(host))
		}
	}()
	if isFile {
		f, err := os.OpenFile(host, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return st, fmt.Errorf("download %s: %w", p, err)
		}
		cw := &countWriter{w: f}
		_, err = rf.f.Download(ctx, p, cw)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return st, remotePathErr("download", p, err)
		}
		return files.CopyStats{Files: 1, Bytes: cw.n}, nil
	}
	pr, pw := io.Pipe()
	skipped := make(chan int, 1)
	go func() {
		n, err := rf.f.Download(ctx, p, pw)
		skipped <- n
		pw.CloseWithError(err) // always nil: the reader sees err
	}()
	err = untar(pr, host, &st)
	pr.CloseWithError(err) // unblocks the download when the unpacking stopped first
	n := <-skipped
	if err != nil {
		return st, remotePathErr("download", p, err)
	}
	if n > 0 {
		st.Skipped = append(st.Skipped, fmt.Sprintf("%d symlinks or special files the engine left out", n))
	}
	return st, nil
}

// untar unpacks the host's archive of a folder (entries under one top
// name) into host. An entry that would land outside host is refused.
func untar(r io.Reader, host string, st *files.CopyStats) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		_, rest, _ := strings.Cut(strings.TrimSuffix(h.Name, "/"), "/")
		if rest != "" && !filepath.IsLocal(rest) {
			return fmt.Errorf("the engine's archive holds %q, outside the folder", h.Name)
		}
		dst := filepath.Join(host, filepath.FromSlash(rest))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
			st.Dirs++
		case tar.TypeReg:
			if err := writeNew(dst, tr, h.FileInfo().Mode().Perm(), st); err != nil {
				return err
			}
		}
	}
}

func writeNew(dst string, r io.Reader, perm os.FileMode, st *files.CopyStats) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	st.Files++
	st.Bytes += n
	return err
}

// countWriter counts what goes through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
