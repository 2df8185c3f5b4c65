package tui

import (
	"github.com/atelier-studio/atelier/tui/files"
)

// historyPart runs a session tab's turn history (history.go): the log,
// each commit's files and diffs, a restore's preview and the restore. It
// keeps no state of its own: what it reads goes to the session's tab, a
// diff tab or a dialog, and it refreshes the file tree after a restore.
// It reaches dialogs, tabs and the activity through its root.
type historyPart struct {
	*studio
	r     historyRoot
	files *files.Tree
}

// historyRoot is what the history part asks of the studio's root.
type historyRoot interface {
	addTab(t tab)
}
