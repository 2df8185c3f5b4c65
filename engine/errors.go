package engine

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/atelier-studio/atelier/sessions"
)

// Sentinel errors that callers branch on, whichever side answered: the
// engine returns them, and the API client's errors match them by their
// problem code (Problems).
var (
	ErrUnknownSession     = errors.New("unknown session")
	ErrUnknownInteraction = errors.New("unknown interaction")
	ErrResolved           = errors.New("interaction already resolved")
	ErrReadOnlySession    = errors.New("session is read-only")
	ErrClosed             = errors.New("engine closed")
	ErrUnknownAgent       = errors.New("unknown agent")
	ErrNotQueued          = errors.New("no such queued item")
	// ErrNotEditable: a queued item other than a prompt or a steer (a
	// model or policy change, a compaction) has no text to edit.
	ErrNotEditable = errors.New("queued item is not a prompt or a steer")
	// ErrReadOnlyState: the workspace's state is read-only (foreign: not
	// made by this user's Atelier; of a newer format; not writable).
	ErrReadOnlyState = errors.New("the workspace's state is read-only")
	// ErrKeyConflict: an idempotency key already names other work.
	ErrKeyConflict = errors.New("idempotency key already used for other work")
	// ErrUnknownKey: a session has no such idempotency key.
	ErrUnknownKey = errors.New("unknown idempotency key")
	// ErrOutputSchema: an output schema that cannot be used (not JSON, not
	// a schema, a reference outside it). Refused before anything is
	// recorded, so before any model call.
	ErrOutputSchema = errors.New("unusable output schema")
	// ErrLeaseHeld: a write that is not a session's waited for the
	// workspace's write lease as long as it could, and it stayed held
	// (a *LeaseHeldError says by whom). Nothing was written.
	ErrLeaseHeld = errors.New("the workspace's write lease stayed held")
	// ErrBadAnswer: an answer that does not fit its interaction (no
	// decision for an approval, an empty answer with no default, a grant
	// prefix the command does not start with). Nothing was resolved.
	ErrBadAnswer = errors.New("the answer does not fit the interaction")
	// ErrExecutionUnavailable: a session's execution cannot run now (no
	// Docker engine answers, its image is missing). Nothing was created.
	ErrExecutionUnavailable = errors.New("the session's execution is unavailable")
)

// LeaseHeldError is ErrLeaseHeld with who held the lease: a session's id,
// another writer's name, or "other readers and writers".
type LeaseHeldError struct{ Holder string }

func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("%v (by %s): nothing was written, try again", ErrLeaseHeld, e.Holder)
}

func (e *LeaseHeldError) Unwrap() error { return ErrLeaseHeld }

// TransitionError is returned when an action is not allowed in the session's
// current status. It names both, so the caller can say what went wrong.
type TransitionError struct {
	Session string
	Status  sessions.Status
	Action  string
	Why     string
}

func (e *TransitionError) Error() string {
	msg := fmt.Sprintf("session %s is %s: cannot %s", e.Session, e.Status, e.Action)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg
}

// Problem codes of the engine's own errors, as the API reports them.
const (
	CodeUnknownSession       = "unknown_session"
	CodeAmbiguousSession     = "ambiguous_session"
	CodeUnknownAgent         = "unknown_agent"
	CodeUnknownInteraction   = "unknown_interaction"
	CodeAlreadyResolved      = "already_resolved"
	CodeNotQueued            = "not_queued"
	CodeNotEditable          = "not_editable"
	CodeUnknownKey           = "unknown_key"
	CodeKeyConflict          = "key_conflict"
	CodeOutputSchema         = "output_schema"
	CodeTransitionRefused    = "transition_refused"
	CodeReadOnlyState        = "read_only_state"
	CodeReadOnlySession      = "read_only_session"
	CodeEngineClosed         = "engine_closed"
	CodeWorkspaceBusy        = "workspace_busy"
	CodeBadAnswer            = "bad_answer"
	CodeExecutionUnavailable = "execution_unavailable"
	CodeTextTooLarge         = "text_too_large"
)

// Problem is how one of the engine's errors crosses the API: the HTTP
// status and the stable code it is reported with. The server reports an
// error that matches Err so; the client turns the code back into Err.
type Problem struct {
	Err    error
	Status int
	Code   string
}

// Problems are the engine's errors and their problems, in the order they
// are tried (a *TransitionError is reported as CodeTransitionRefused,
// 409, before any of them).
var Problems = []Problem{
	{ErrUnknownSession, http.StatusNotFound, CodeUnknownSession},
	{sessions.ErrAmbiguous, http.StatusBadRequest, CodeAmbiguousSession},
	{ErrUnknownAgent, http.StatusBadRequest, CodeUnknownAgent},
	{ErrResolved, http.StatusConflict, CodeAlreadyResolved},
	{ErrUnknownInteraction, http.StatusNotFound, CodeUnknownInteraction},
	{ErrNotQueued, http.StatusNotFound, CodeNotQueued},
	{ErrNotEditable, http.StatusConflict, CodeNotEditable},
	{ErrUnknownKey, http.StatusNotFound, CodeUnknownKey},
	{ErrKeyConflict, http.StatusConflict, CodeKeyConflict},
	{ErrOutputSchema, http.StatusBadRequest, CodeOutputSchema},
	{ErrBadAnswer, http.StatusBadRequest, CodeBadAnswer},
	{ErrExecutionUnavailable, http.StatusConflict, CodeExecutionUnavailable},
	{ErrReadOnlyState, http.StatusConflict, CodeReadOnlyState},
	{ErrReadOnlySession, http.StatusConflict, CodeReadOnlySession},
	{ErrClosed, http.StatusServiceUnavailable, CodeEngineClosed},
	{ErrLeaseHeld, http.StatusConflict, CodeWorkspaceBusy},
	{ErrTextTooLarge, http.StatusRequestEntityTooLarge, CodeTextTooLarge},
}

// ProblemOf is the problem err is reported as: a refused transition's, or
// that of the first of Problems err matches; false for an error the
// engine does not type (reported as an engine error, 500).
func ProblemOf(err error) (Problem, bool) {
	var te *TransitionError
	if errors.As(err, &te) {
		return Problem{Err: err, Status: http.StatusConflict, Code: CodeTransitionRefused}, true
	}
	for _, p := range Problems {
		if errors.Is(err, p.Err) {
			return p, true
		}
	}
	return Problem{}, false
}
