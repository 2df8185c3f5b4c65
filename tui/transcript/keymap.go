package transcript

import (
	"charm.land/bubbles/v2/key"

	"github.com/atelier-studio/atelier/tui/keys"
)

// KeyMap is the session tab's keys.
type KeyMap struct {
	Input, Pause, Resume, Stop, Interrupt, Cancel, Close, Nudge, Fork, Compact, Clear, Unqueue key.Binding
	QueuePrev, QueueNext, QueueUp, QueueDown, QueueEdit, Grants                                key.Binding
	History, Terminal, Older                                                                   key.Binding
	Up, Down, PageUp, PageDown, Top, Bottom, Prev, Next, Toggle                                key.Binding
}

// DefaultKeyMap returns the tab's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Input:     keys.New("write a prompt (a steer while it runs)", "enter", "i"),
		Pause:     keys.New("pause at the next boundary", "p"),
		Resume:    keys.New("run: start a created session, resume a paused one", "r"),
		Stop:      keys.New("stop the turn, keep the session", "s"),
		Interrupt: keys.New("interrupt the running turn, as s does (out of the input line: its first esc leaves it)", "esc"),
		Cancel:    keys.New("cancel the session (asks first)", "x"),
		Close:     keys.New("close a continuous session", "c"),
		Nudge:     keys.New("nudge: fire a parked timer now", "w"),
		Fork:      keys.New("fork up to the selected message", "f"),
		Compact:   keys.New("compact: the agent summarises the older history, which the summary replaces in what it is shown (the transcript keeps all)", "C"),
		Clear:     keys.New("clear the conversation, as /clear in the input line: the agent is shown nothing said before (the transcript keeps all; asks first)", "N"),
		Unqueue:   keys.New("remove the selected queued input (the last when none is)", "u"),
		QueuePrev: keys.New("select the previous queued input", "{"),
		QueueNext: keys.New("select the next queued input", "}"),
		QueueUp:   keys.New("move the selected queued input earlier", "K"),
		QueueDown: keys.New("move the selected queued input later", "J"),
		QueueEdit: keys.New("edit the selected queued prompt in place (up in an empty input line edits the last one)", "e"),
		Grants:    keys.New("the session's \"allow for this session\" grants (permissions), to revoke one", "P"),
		History:   keys.New("history of the turns: each turn's commit and files, their diffs; restore to a turn", "h"),
		Terminal:  keys.New("open a terminal in the session's environment (its container, or the host)", "t"),
		Older:     keys.New("load the older messages (a long transcript opens with its newest 500)", "o"),
		Up:        keys.New("scroll up", "up", "k"),
		Down:      keys.New("scroll down", "down", "j"),
		PageUp:    keys.New("page up", "pgup", "ctrl+b"),
		PageDown:  keys.New("page down", "pgdown", "ctrl+f"),
		Top:       keys.New("first message", "home", "g"),
		Bottom:    keys.New("newest message, follow", "end", "G"),
		Prev:      keys.New("select the previous message or card", "["),
		Next:      keys.New("select the next message or card", "]"),
		Toggle:    keys.New("expand or collapse the selected card", "space"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{
		Name: "Session tab",
		About: "A session's tab in the centre. The input line takes every key while open: `enter` sends " +
			"(a steer while the session runs, its next prompt while it waits), `tab` queues it as the " +
			"next prompt while the session runs, `esc` leaves it (and a second `esc` interrupts the running turn). " +
			"A prompt takes several lines: `shift+enter` (where the terminal reports it), `alt+enter`, `ctrl+j`, or `\\` then `enter`, " +
			"breaks the line, a paste keeps its lines, and `up` and `down` move between them. `up` in an empty input line edits the last queued prompt " +
			"in place; while editing, `enter` saves it (it keeps its place in the queue) and `esc` leaves it as it was. " +
			"`/clear` sent alone clears the conversation (as `N`, without asking). " +
			"`@` then the start of a name offers the workspace's files and folders it begins (the ignored ones left out): " +
			"`tab` or `enter` puts the selected one in as `@path`, `up` and `down` choose, `esc` closes the list.",
		Bindings: []key.Binding{k.Input, k.Pause, k.Resume, k.Stop, k.Interrupt, k.Cancel, k.Close, k.Nudge, k.Fork, k.Compact, k.Clear, k.Unqueue,
			k.QueuePrev, k.QueueNext, k.QueueUp, k.QueueDown, k.QueueEdit, k.Grants, k.History, k.Terminal, k.Older,
			k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Prev, k.Next, k.Toggle},
		Short: []string{"enter/i", "r", "p", "s", "x", "h"},
	}
}
