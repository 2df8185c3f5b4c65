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

// Compact asks for the session's older history to be summarised.
type Compact struct{ ID string }

// Clear asks for the session's conversation to start afresh: Typed when
// the operator wrote /clear (which says so already), not a key to confirm.
type Clear struct {
	ID    string
	Typed bool
}

// LoadPaths asks for the workspace's paths, to complete a mention (the
// tab has none yet).
type LoadPaths struct{}

// Unqueue asks to remove a pending input.
type Unqueue struct{ ID, ControlID string }

// MoveQueued asks to move a pending input to position To (0 is next).
type MoveQueued struct {
	ID, ControlID string
	To            int
}

// EditQueued asks to replace the text of a pending prompt or steer; it
// keeps its place in the queue.
type EditQueued struct{ ID, ControlID, Text string }

// Grants asks for the session's grants, to revoke one.
type Grants struct{ ID, Title string }

// Reload asks for the transcript again (an event could not be placed).
type Reload struct{ ID string }

// LoadHistory asks for the session's turn history (History.Log filtered
// by the session, and each commit's changed files).
type LoadHistory struct{ ID string }

// OpenDiff asks for a commit's diff in a tab: of Paths only, or the whole
// commit when Paths is empty.
type OpenDiff struct {
	ID, Commit, Title string
	Paths             []string
}

// Restore asks to restore the workspace (Paths only, when given) to its
// state after Commit; the root previews it and asks first. Label says
// what it goes back to, for people ("after turn 3").
type Restore struct {
	ID, Commit, Label string
	Paths             []string
}

// LoadFiles asks for the changed files of some commits of the history
// (they load as the list scrolls near them).
type LoadFiles struct {
	ID      string
	Commits []string
}

// Terminal asks for a terminal tab in the session's execution environment.
type Terminal struct{ ID, Title string }

// LoadAll asks for the whole transcript (the tab opened with its tail).
type LoadAll struct{ ID string }

func (LoadHistory) tabAction() {}
func (LoadFiles) tabAction()   {}
func (OpenDiff) tabAction()    {}
func (Restore) tabAction()     {}
func (Terminal) tabAction()    {}
func (LoadAll) tabAction()     {}
func (Control) tabAction()     {}
func (Input) tabAction()       {}
func (Fork) tabAction()        {}
func (Compact) tabAction()     {}
func (Clear) tabAction()       {}
func (LoadPaths) tabAction()   {}
func (Unqueue) tabAction()     {}
func (Reload) tabAction()      {}
func (MoveQueued) tabAction()  {}
func (Grants) tabAction()      {}
func (EditQueued) tabAction()  {}
