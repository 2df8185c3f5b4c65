package attach

import (
	"errors"
	"io/fs"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/workflow"
)

// Errors a host reports that the engine has no sentinel for; the CLI
// gives them the caller's exit code (2), as it does a *core.TransitionError
// (which a host reports as transition_refused) and a malformed request.
var (
	ErrTransitionRefused = errors.New("transition refused")
	ErrBadRequest        = errors.New("bad request")
	ErrKeyNotUncertain   = errors.New("key not uncertain")
	// ErrStaleWrite refuses a save over a file that changed on the host
	// since the studio read it.
	ErrStaleWrite = errors.New("the file changed since it was read")
)

// problemSentinels are the errors the host's problem codes stand for: the
// engine's own (engine.Problems, the table the server reports them by)
// and those of the layers below it.
var problemSentinels = func() map[string]error {
	m := map[string]error{
		client.CodeKeyNotUncertain:   ErrKeyNotUncertain,
		client.CodeTransitionRefused: ErrTransitionRefused,
		client.CodeBadRequest:        ErrBadRequest,
		client.CodeUnknownCommit:     history.ErrBadCommit,
		client.CodeNotInHistory:      history.ErrNotFound,
		client.CodeNothingToRestore:  history.ErrNothingToRestore,
		client.CodeFileNotFound:      fs.ErrNotExist,
		client.CodeFileTooLarge:      files.ErrTooLarge,
		client.CodeStaleWrite:        ErrStaleWrite,
		client.CodeWorkflowsOff:      ErrWorkflowsOff,
		client.CodeWorkflowNotFound:  workflow.ErrNotFound,
		client.CodeWorkflowUnusable:  workflow.ErrUnusable,
		client.CodeWorkflowUntrusted: workflow.ErrUntrusted,
		client.CodeWorkflowConflict:  workflow.ErrConflict,
		client.CodeUnknownInstance:   instances.ErrNotFound,
		client.CodeNoInstances:       core.ErrNoInstances,
		client.CodeInstanceExists:    instances.ErrExists,
		client.CodeNotWorktree:       instances.ErrNotWorktree,
	}
	for _, p := range engine.Problems {
		m[p.Code] = p.Err
	}
	return m
}()

// problemKind is the engine's error a problem stands for: a refusal that
// names files or sessions is rebuilt as the engine's typed error (its
// instance is filled by the caller, which knows it).
func problemKind(p *client.Problem) error {
	switch p.Code {
	case client.CodeInstanceConflict:
		return &instances.ConflictError{Files: p.Files}
	case client.CodeUnappliedChanges:
		return &instances.UnappliedError{Files: p.Files}
	case client.CodeInstanceInUse:
		return &core.InUseError{Sessions: p.Sessions}
	}
	return problemSentinels[p.Code]
}

// hostError is a problem the host reported, as the engine's error: its
// text is the engine's message (the problem's detail) and it matches the
// engine's sentinel for its code.
type hostError struct {
	msg  string
	kind error // nil: an error the engine does not type
}

func (e *hostError) Error() string { return e.msg }
func (e *hostError) Unwrap() error { return e.kind }

// Err turns what a client call returned into the engine's error; a
// transport failure (the host went away) stays as it is.
func Err(err error) error {
	var p *client.Problem
	if err == nil || !errors.As(err, &p) {
		return err
	}
	msg := p.Detail
	if msg == "" {
		msg = p.Error()
	}
	return &hostError{msg: msg, kind: problemKind(p)}
}
