package files

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultMaxRead is the size cap of ReadFile when the caller sets none: big
// enough for any source file, small enough to keep a stray log or dump out
// of a model's context and the editor.
const DefaultMaxRead = 8 << 20

// binarySniff is how much of a file's head decides whether it is binary,
// the same amount git looks at.
const binarySniff = 8000

// IsBinary reports whether data (a file's head) looks binary: it holds a NUL
// byte in its first 8000 bytes, git's own rule.
func IsBinary(data []byte) bool {
	if len(data) > binarySniff {
		data = data[:binarySniff]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// ReadOptions tunes ReadFile.
type ReadOptions struct {
	// MaxBytes caps the size of the file; 0 means DefaultMaxRead. A bigger
	// file fails with ErrTooLarge and nothing is read.
	MaxBytes int64
	// AllowBinary returns a binary file's bytes instead of ErrBinary.
	AllowBinary bool
}

// Content is a file read from the workspace.
type Content struct {
	Path    string // canonical workspace-relative path (symlinks resolved)
	Data    []byte
	Binary  bool
	Mode    fs.FileMode
	ModTime time.Time
}

// ReadFile reads the file p names, following symlinks that stay inside the
// workspace. actor names the reader (a session id, "operator"); reads change
// nothing, so it is only part of the call for symmetry with the writes and
// for error reports.
func (w *Workspace) ReadFile(actor, p string, o ReadOptions) (*Content, error) {
	const op = "read"
	if err := w.enter(); err != nil {
		return nil, pathErr(op, p, err)
	}
	defer w.leave()
	limit := o.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxRead
	}
	fd, rel, err := w.openResolved(p, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, pathErr(op, p, err)
	}
	f := os.NewFile(uintptr(fd), rel)
	defer closeFile(f)
	st, err := f.Stat()
	if err != nil {
		return nil, pathErr(op, p, err)
	}
	switch {
	case st.IsDir():
		return nil, pathErr(op, p, ErrIsDir)
	case !st.Mode().IsRegular():
		return nil, pathErr(op, p, ErrNotRegular)
	case st.Size() > limit:
		return nil, &PathError{Op: op, Path: p, Err: ErrTooLarge,
			Detail: fmt.Sprintf("%d bytes, the limit is %d", st.Size(), limit)}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, pathErr(op, p, err)
	}
	if int64(len(data)) > limit {
		return nil, &PathError{Op: op, Path: p, Err: ErrTooLarge,
			Detail: fmt.Sprintf("grew past the limit of %d bytes while read", limit)}
	}
	c := &Content{Path: rel, Data: data, Binary: IsBinary(data), Mode: st.Mode(), ModTime: st.ModTime()}
	if c.Binary && !o.AllowBinary {
		return nil, pathErr(op, p, ErrBinary)
	}
	return c, nil
}
