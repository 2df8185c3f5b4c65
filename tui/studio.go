package tui

import (
	"time"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/themes"
)

// studio is what the parts of the studio share with their root: the
// options, the engine, the styles and keymaps in force, the clock, the
// status line, the engine's live view and the tab set. The root (App)
// changes it (the styles on a theme change, the clock on a tick, the live
// view as events arrive); a part reads it, says things in the status line
// and looks tabs up, and keeps its own state in its own struct. It holds
// fields only: behaviour belongs to the part that owns the state.
type studio struct {
	opts   Options
	eng    attach.Engine
	st     themes.Styles
	km     keymaps // every keymap, with the configuration's overrides
	keys   GlobalKeyMap
	now    time.Time
	status statusLine // statusline.go
	live   liveView   // the engine's live view, as folded in (liveview.go)
	tabs   tabSet     // tabset.go
	home   string     // the operator's home folder, for host paths
	ui     UIState    // what the operator chose in the studio (uistate.go)
	act    *journal   // the activity stream, kept (journal.go)
	dlg    dialogs    // the open dialog and its continuation (dialogs.go)
	// exitNote says why the studio quit by itself; Run prints it.
	exitNote string
}
