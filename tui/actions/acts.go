package actions

import (
	sess "github.com/atelier-studio/atelier/sessions"
)

// Action is what the pane asks the root to do.
type Action interface{ actionRequired() }

// Decide answers an approval; WithMessage asks for the message first.
type Decide struct {
	SessionID, Title, InteractionID string
	Decision                        sess.Decision
	WithMessage                     bool
	Subject                         string // what was asked: "exec `ls -la`"
}

// AllowPrefix asks which leading words of Command to allow for the rest of
// the session, then allows this call with a grant of the commands starting
// with them.
type AllowPrefix struct {
	SessionID, Title, InteractionID string
	Tool, Command                   string
}

// AlwaysHere keeps a workspace rule that always allows this call (Tool on
// Subject, the command line or the path) and allows this one.
type AlwaysHere struct {
	SessionID, Title, InteractionID string
	Tool, Subject                   string
}

// Answer answers a question: with its default when TakeDefault, otherwise
// after asking the operator (the default pre-filled).
type Answer struct {
	SessionID, Title, InteractionID string
	Question                        string
	Choices                         []string
	Default                         string
	TakeDefault                     bool
}

// SendNext asks for the next instruction of a WAITING session.
type SendNext struct{ SessionID, Title string }

// Control asks for a control on the session: "nudge", "close" or "cancel".
type Control struct{ SessionID, Title, Control string }

// ViewDiff opens an approval's diff in a tab.
type ViewDiff struct{ SessionID, Title, Path, Diff string }

func (Decide) actionRequired()      {}
func (AlwaysHere) actionRequired()  {}
func (AllowPrefix) actionRequired() {}
func (Answer) actionRequired()      {}
func (SendNext) actionRequired()    {}
func (Control) actionRequired()     {}
func (ViewDiff) actionRequired()    {}
