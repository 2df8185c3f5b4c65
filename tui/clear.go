package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/tui/transcript"
)

// clearedWhat is the status line's word for a clear the engine took.
const clearedWhat = "cleared the conversation: the agent is shown nothing said before"

// clearConversation clears a session's conversation: at once for a typed
// /clear (the operator wrote what it does), after asking for the key, a
// single press that would otherwise lose the agent its context.
func (cp *controlPart) clearConversation(act transcript.Clear) tea.Cmd {
	id, e := act.ID, cp.eng
	clear := func() tea.Cmd {
		return cp.call(id, clearedWhat, func() (core.Receipt, error) { return e.Clear(id) })
	}
	if act.Typed {
		return clear()
	}
	cp.dlg.confirm("Clear the conversation", "Clear the conversation of "+quote(cp.live.recs[id].Title)+
		"? The agent is shown nothing said before; the transcript keeps it all.", "clear it", clear)
	return nil
}
