package workflow

import (
	"errors"
	"fmt"
)

// Errors callers branch on (the CLI maps them to exit codes).
var (
	// ErrUnusable: the workflow, its schemas, templates or the input cannot
	// be used; nothing ran.
	ErrUnusable = errors.New("unusable workflow")
	// ErrConflict: the key's run was started with another input.
	ErrConflict = errors.New("conflict")
	// ErrUntrusted: the workspace's workflow file is not trusted as it is.
	ErrUntrusted = errors.New("not trusted")
	// ErrNotFound: no such workflow, or no such run.
	ErrNotFound = errors.New("not found")
	// ErrClosed: the runner stopped (its engine closed).
	ErrClosed = errors.New("the workflow runner stopped")
)

// UnusableError says where and why a workflow (or an input) cannot be
// used. It is ErrUnusable.
type UnusableError struct {
	At  string // file or file:line
	Msg string
}

func (e *UnusableError) Error() string {
	if e.At == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s: %s", e.At, e.Msg)
}

// Is makes errors.Is(err, ErrUnusable) true.
func (e *UnusableError) Is(target error) bool { return target == ErrUnusable }
