package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/sessions"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// settingsPart owns the settings tab's flows and what they read: the
// workspace's "always allow here" rules, the notification channel in
// force, the run log's poll, and the workflow runs and triggers. It
// shows a run's session in the session list; it may not touch other
// panes, and it reaches dialogs, tabs, the focus and the activity
// through its root.
//
// Files: settingstab.go (the tab, its actions, the run log's poll),
// wsrules.go (the rules), programs.go (the workflow runs).
type settingsPart struct {
	*studio
	r        settingsPartRoot
	sessions *sessions.List
	actions  *actions.Pane // what needs the operator, for notifications (notify.go)
	scr      *screen
	// rules are the workspace's "always allow here" rules, as last read.
	rules []config.WorkspaceRule
	// notify is how a session that needs the operator is announced:
	// auto, bell, osc or none.
	notify string
	// runLogGen is the settings tab's run log poll in force.
	runLogGen   int
	runLogEvery time.Duration
	// runs are the workflow runs as last read (programs.go); runsBusy: a
	// read is in flight, runsAgain: read again when it is back; runsErr
	// is the last read's failure, said once.
	runs      []runs.Run
	runsBusy  bool
	runsAgain bool
	runsErr   string
	// callErr runs an engine call for a session (the control part's).
	callErr func(sid, what string, f func() error) tea.Cmd
}

// settingsPartRoot is what the settings part asks of the studio's root.
type settingsPartRoot interface {
	addTab(t tab)
	selectTab(i int)
	setFocus(f focus)
}
