package core

import (
	"errors"
	"fmt"

	"github.com/atelier-studio/atelier/sessions"
)

// Sentinel errors that callers branch on.
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
)

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

// readOnlyErr says why nothing can be done in a read-only state, and how to
// go on.
func (e *Engine) readOnlyErr() error {
	return fmt.Errorf("%w: %s", ErrReadOnlyState, e.StateNotice())
}
