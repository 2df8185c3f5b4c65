package tui

import (
	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/keys"
)

// chrome draws what no pane draws: the centre's tab bar and its welcome,
// the status line with its key hints, the single-pane header, the marks
// of sessions waiting for the operator, the screen too small to draw in,
// and the open dialog over the rest (view.go); it opens the status line's
// recent messages and an activity entry whole (messages.go). It owns
// nothing: it reads
// the screen's geometry, the tab set, the status line and the Action
// required pane's count, and asks its root which keys are in force.
type chrome struct {
	*studio
	r       chromeRoot
	scr     *screen
	actions *actions.Pane
}

// chromeRoot is what the chrome asks of the studio's root: the keys'
// scope in force and the tab that takes the raw keys, if any.
type chromeRoot interface {
	focusedScope() keys.Scope
	rawFocus() rawTab
}
