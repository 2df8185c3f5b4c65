package tui

import (
	tea "charm.land/bubbletea/v2"

	eterm "github.com/atelier-studio/atelier/terminal"
	"github.com/atelier-studio/atelier/tui/editor"
	"github.com/atelier-studio/atelier/tui/files"
)

// workPart owns the operator's own work in the centre: the editors' shared
// clipboard, the ids of editor and terminal tabs, the host the terminals
// run on and the terminals being opened, and the file tree's operations.
// It reads and saves files, watches open files for changes on disk, opens
// terminals and reattaches the ones the host kept. It updates the file
// tree after an operation; it may not touch other panes, and it reaches
// dialogs, tabs, the focus and the activity through its root.
//
// Files: editing.go (editors and the terminals' opening), keptterms.go
// (terminals the host kept for the next studio), fileops.go (the file
// tree's operations and blame).
type workPart struct {
	*studio
	r     workRoot
	files *files.Tree
	clip  editor.Clipboard // shared by the editors
	// nextID names editor and terminal tabs.
	nextID int
	// host is where terminal tabs run; hostErr says why there is none.
	host    *eterm.Local
	hostErr string
	// termsOpening counts the host terminals this studio is opening;
	// keptLater holds the list of kept terminals that came meanwhile
	// (keptterms.go).
	termsOpening int
	keptLater    *keptTerminalsMsg
}

// workRoot is what the work part asks of the studio's root.
type workRoot interface {
	addTab(t tab)
	selectTab(i int)
	setFocus(f focus)
	closeTabCmd(i int) tea.Cmd
	closeTabID(id string) tea.Cmd
	termSize() eterm.Size
}
