package core

import (
	"fmt"

	"github.com/atelier-studio/atelier/engine"
)

// Sentinel errors that callers branch on: the engine package's, which the
// API client's errors match too.
var (
	ErrUnknownSession       = engine.ErrUnknownSession
	ErrUnknownInteraction   = engine.ErrUnknownInteraction
	ErrResolved             = engine.ErrResolved
	ErrReadOnlySession      = engine.ErrReadOnlySession
	ErrClosed               = engine.ErrClosed
	ErrUnknownAgent         = engine.ErrUnknownAgent
	ErrNotQueued            = engine.ErrNotQueued
	ErrNotEditable          = engine.ErrNotEditable
	ErrReadOnlyState        = engine.ErrReadOnlyState
	ErrKeyConflict          = engine.ErrKeyConflict
	ErrUnknownKey           = engine.ErrUnknownKey
	ErrOutputSchema         = engine.ErrOutputSchema
	ErrLeaseHeld            = engine.ErrLeaseHeld
	ErrBadAnswer            = engine.ErrBadAnswer
	ErrExecutionUnavailable = engine.ErrExecutionUnavailable
	ErrTextTooLarge         = engine.ErrTextTooLarge
)

// TransitionError is returned when an action is not allowed in the
// session's current status (engine.TransitionError).
type TransitionError = engine.TransitionError

// readOnlyErr says why nothing can be done in a read-only state, and how to
// go on.
func (e *Engine) readOnlyErr() error {
	return fmt.Errorf("%w: %s", ErrReadOnlyState, e.StateNotice())
}
