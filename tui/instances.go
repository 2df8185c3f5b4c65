package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/tui/files"
	"github.com/atelier-studio/atelier/tui/sessions"
)

// instancesPart owns what the studio knows of the workspace's instances
// (insts: the list, their sizes, the reads in flight) and what the file
// pane follows (follow: the workspace, or the instance of the selected
// session). It holds the workspaces tab's data, the apply, discard and
// branch flows with their previews, and the new-session form's choice of
// an instance. It swaps the file pane's tree and reads the session list's
// selection; it may not touch other panes, and it reaches dialogs, tabs
// and the focus only through its root.
//
// Files: workspacestab.go (the list and its measures), instanceacts.go
// (the tab's actions and their results), filesfollow.go (the file pane's
// instance), copysize.go (a copy's size checked before it is made).
type instancesPart struct {
	*studio
	r        instancesRoot
	files    *files.Tree
	sessions *sessions.List
	insts    instState
	follow   followState
	// create makes a session (the control part's).
	create func(o core.CreateOptions) tea.Cmd
}

// instancesRoot is what the instances part asks of the studio's root.
type instancesRoot interface {
	addTab(t tab)
	selectTab(i int)
	setFocus(f focus)
}
