package tui

import (
	tea "charm.land/bubbletea/v2"
)

// controlPart turns what the operator asks of sessions into engine
// calls: the session list's and a session tab's actions (send, steer,
// pause, resume, cancel, fork, close), the answers to approvals and
// questions, the grants, a new session, and the transcripts' reads. It
// owns the session just created, whose tab opens when its record
// arrives. A session tab's history, terminal and rule actions go to the
// parts that own them; dialogs, tabs, the focus and the activity are
// reached through its root.
//
// Files: commands.go (engine calls in commands and their results),
// dialogs.go (the session half: the actions and the answers' dialogs).
type controlPart struct {
	*studio
	r    controlRoot
	hist *historyPart
	work *workPart
	set  *settingsPart
	at   *mentionPart // the paths a prompt's "@" completes
	// opening is a session just created: its tab opens when its record
	// arrives.
	opening string
}

// controlRoot is what the control part asks of the studio's root.
type controlRoot interface {
	openSession(id string, focus bool) tea.Cmd
	selectTab(i int)
	setFocus(f focus)
	layout()
}

// layout implements sessionRoot: a session tab's height changed.
func (cp *controlPart) layout() { cp.r.layout() }
