package files

import (
	"errors"
	"fmt"
)

// Sentinel errors callers branch on with errors.Is. File-system conditions
// (a missing file, an existing one) keep their fs.ErrNotExist and fs.ErrExist
// meaning through the wrapped errno.
var (
	// ErrOutsideWorkspace refuses a path that would leave the workspace: ".."
	// past the root, an absolute path elsewhere, or a symlink pointing out.
	ErrOutsideWorkspace = errors.New("path is outside the workspace")
	// ErrSymlinkLoop refuses a path whose symlinks do not resolve within a
	// bounded number of hops.
	ErrSymlinkLoop = errors.New("too many levels of symbolic links")
	// ErrInvalidPath refuses a path that is empty where a name is needed or
	// holds a NUL byte.
	ErrInvalidPath = errors.New("invalid path")
	// ErrRoot refuses to delete, rename or overwrite the workspace root itself.
	ErrRoot = errors.New("operation not allowed on the workspace root")
	// ErrPathChanged reports a path that kept changing (a directory swapped
	// for a symlink and back) while it was being resolved.
	ErrPathChanged = errors.New("path changed while it was being resolved")
	// ErrIsDir refuses a file operation on a directory.
	ErrIsDir = errors.New("is a directory")
	// ErrNotDir refuses a directory operation on something else.
	ErrNotDir = errors.New("not a directory")
	// ErrNotRegular refuses to read or overwrite a device, socket or pipe.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge refuses to read a file over the size cap.
	ErrTooLarge = errors.New("file is too large")
	// ErrBinary refuses to read a binary file as text.
	ErrBinary = errors.New("file is binary")
	// ErrClosed is returned by a Workspace or Watcher used after Close.
	ErrClosed = errors.New("closed")
)

// PathError is the error of every file operation: the operation, the
// workspace-relative path as given, an optional detail (which symlink pointed
// where) and the cause, which errors.Is sees through.
type PathError struct {
	Op     string
	Path   string
	Detail string
	Err    error
}

// Error reads as "files: write a/b.go: path is outside the workspace (...)".
func (e *PathError) Error() string {
	s := fmt.Sprintf("files: %s %s: %v", e.Op, e.Path, e.Err)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Unwrap returns the cause.
func (e *PathError) Unwrap() error { return e.Err }

// pathErr names the operation and the path of err. A PathError made
// deeper down keeps its own names; one that names neither (the resolver's
// refusals know only which component failed) gets these, so no message
// reads "files:  : path is outside the workspace".
func pathErr(op, path string, err error) error {
	var pe *PathError
	if errors.As(err, &pe) {
		if pe.Op != "" || pe.Path != "" {
			return err
		}
		named := *pe
		named.Op, named.Path = op, path
		if pe == err { //nolint:errorlint // identity: err is the PathError itself, not wrapped
			return &named
		}
		return &PathError{Op: op, Path: path, Err: err}
	}
	return &PathError{Op: op, Path: path, Err: err}
}
