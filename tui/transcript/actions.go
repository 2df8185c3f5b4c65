package transcript

import (
	"github.com/atelier-studio/atelier/core"
)

// Action is what a session tab asks the root to do.
type Action interface{ tabAction() }

// Control asks for one of the engine's controls on the session.
type Control struct {
	ID     string
	Action core.Action // pause, resume, stop, cancel, close, nudge
}

// Input asks to send text: a steer while the session runs or is paused,
// its next prompt otherwise.
type Input struct {
	ID, Text string
	Steer    bool
}

// Fork asks to fork the session up to a message ("" for all of it).
type Fork struct{ ID, UpTo, Title string }

// Unqueue asks to remove a pending input.
type Unqueue struct{ ID, ControlID string }

// MoveQueued asks to move a pending input to position To (0 is next).
type MoveQueued struct {
	ID, ControlID string
	To            int
}

// Grants asks for the session's grants, to revoke one.
type Grants struct{ ID, Title string }

// Reload asks for the transcript again (an event could not be placed).
type Reload struct{ ID string }

func (Control) tabAction()    {}
func (Input) tabAction()      {}
func (Fork) tabAction()       {}
func (Unqueue) tabAction()    {}
func (Reload) tabAction()     {}
func (MoveQueued) tabAction() {}
func (Grants) tabAction()     {}
