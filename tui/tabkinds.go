package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/diff"
	"github.com/atelier-studio/atelier/tui/editor"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/terminal"
	"github.com/atelier-studio/atelier/tui/transcript"
)

// The kinds of tab. Each takes its own keys, paste and messages, and
// reports what it wants of the studio to its kind's root (sessionRoot,
// editorRoot, termRoot, settingsRoot, workspacesRoot).

// sessionTab is a session's tab; its Scope is the history's while the tab
// shows its turn history.
type sessionTab struct {
	*transcript.Tab
	r sessionRoot
}

// TabID implements tab.
func (t *sessionTab) TabID() string { return sessionTabID(t.ID()) }

// HandleKey implements tab.
func (t *sessionTab) HandleKey(msg tea.KeyPressMsg) tea.Cmd {
	return t.r.tabAction(t.Tab.HandleKey(msg))
}

// Update implements tab: the transcript and the history, as read.
func (t *sessionTab) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadedMsg:
		t.LoadedTail(msg.msgs, msg.seq, msg.more, msg.err)
		t.r.layout()
	case historyMsg:
		t.History().Set(msg.turns, msg.more, msg.err)
		return t.r.tabAction(t.Wants())
	case filesLoadedMsg:
		t.History().SetFiles(msg.turns)
		return t.r.tabAction(t.Wants())
	}
	return nil
}

func (t *sessionTab) saved() (savedTab, bool) { return savedTab{Session: t.ID()}, true }

// TabID names the session tab the message is for.
func (m loadedMsg) TabID() string { return sessionTabID(m.id) }

// TabID names the session tab the message is for.
func (m historyMsg) TabID() string { return sessionTabID(m.id) }

// TabID names the session tab the message is for.
func (m filesLoadedMsg) TabID() string { return sessionTabID(m.id) }

// diffTab shows a diff: an approval's, a commit's, an instance's.
type diffTab struct {
	v         *diff.View
	sessionID string
	id        string
}

// TabID implements tab.
func (t *diffTab) TabID() string { return t.id }

// Label implements tab.
func (t *diffTab) Label(width int) string {
	return ansi.Truncate("± "+t.v.Title(), width, "…")
}

// SetSize implements tab.
func (t *diffTab) SetSize(w, h int) { t.v.SetSize(w, h) }

// View implements tab.
func (t *diffTab) View() []string { return t.v.View() }

// Scroll implements tab.
func (t *diffTab) Scroll(n int) { t.v.Scroll(n) }

// HandleKey implements tab.
func (t *diffTab) HandleKey(msg tea.KeyPressMsg) tea.Cmd { t.v.HandleKey(msg); return nil }

// Update implements tab: no message names a diff.
func (t *diffTab) Update(tea.Msg) tea.Cmd { return nil }

// Paste implements tab: a diff takes no text.
func (t *diffTab) Paste(tea.PasteMsg) {}

// SetStyles implements tab.
func (t *diffTab) SetStyles(st themes.Styles) { t.v.SetStyles(st) }

// Focus implements tab.
func (t *diffTab) Focus() {}

// Blur implements tab.
func (t *diffTab) Blur() {}

// TakesText implements tab.
func (t *diffTab) TakesText() bool { return false }

// Scope implements tab.
func (t *diffTab) Scope() keys.Scope { return t.v.KeyMap().Scope() }

func (t *diffTab) saved() (savedTab, bool) { return savedTab{}, false }

// TabID implements tab.
func (t *editorTab) TabID() string { return editorTabID(t.ID()) }

// HandleKey implements tab: released, enter or i takes the keys again.
func (t *editorTab) HandleKey(msg tea.KeyPressMsg) tea.Cmd {
	if !t.raw() {
		if msg.String() == "enter" || msg.String() == "i" {
			t.recapture()
		}
		return nil
	}
	act := t.Editor.HandleKey(msg)
	return tea.Batch(t.r.editorAction(t, act), t.Highlight())
}

// Update implements tab: the highlighting, as lexed.
func (t *editorTab) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(editor.Highlighted); ok {
		return t.Highlighted(msg)
	}
	return nil
}

// Paste implements tab: only while the editor has the keys.
func (t *editorTab) Paste(msg tea.PasteMsg) {
	if t.raw() {
		t.Editor.Paste(msg)
	}
}

func (t *editorTab) saved() (savedTab, bool) { return savedTab{File: t.Path()}, true }

// TabID implements tab.
func (t *termTab) TabID() string { return terminalTabID(t.ID()) }

// HandleKey implements tab: released, enter or i takes the keys again and
// the scroll keys read the scrollback.
func (t *termTab) HandleKey(msg tea.KeyPressMsg) tea.Cmd {
	if t.Copying() {
		return t.copyKey(msg)
	}
	if !t.raw() {
		switch k := t.KeyMap(); {
		case key.Matches(msg, k.CopyMode):
			t.EnterCopy()
			t.r.say("copy mode: the view holds still", false)
		case msg.String() == "enter" || msg.String() == "i":
			t.recapture()
		case key.Matches(msg, k.ScrollUp), key.Matches(msg, k.ScrollDown):
			t.Tab.HandleKey(msg) // the scrollback reads without giving the program the keys
		}
		return nil
	}
	if c := t.Tab.HandleKey(msg); c != nil {
		return t.r.closeTabID(t.TabID())
	}
	return nil
}

// Update implements tab: the screen changed, or the program ended.
func (t *termTab) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case terminal.Updated:
		return t.Wait()
	case terminal.Exited:
		t.Exit(msg)
		t.r.say(t.Title()+" ended", msg.Code != 0)
	}
	return nil
}

// Paste implements tab: only while the terminal has the keys.
func (t *termTab) Paste(msg tea.PasteMsg) {
	if t.raw() {
		t.Tab.Paste(msg)
	}
}

func (t *termTab) saved() (savedTab, bool) { return savedTab{}, false }

// TabID implements tab.
func (t *settingsTab) TabID() string { return settingsTabID }

// HandleKey implements tab.
func (t *settingsTab) HandleKey(msg tea.KeyPressMsg) tea.Cmd {
	return t.r.settingsAction(t.Pane.HandleKey(msg))
}

// Update implements tab: no message names the settings.
func (t *settingsTab) Update(tea.Msg) tea.Cmd { return nil }

// Paste implements tab: the settings take no text.
func (t *settingsTab) Paste(tea.PasteMsg) {}

func (t *settingsTab) saved() (savedTab, bool) { return savedTab{}, false }

// TabID implements tab.
func (t *workspacesTab) TabID() string { return workspacesTabID }

// HandleKey implements tab.
func (t *workspacesTab) HandleKey(msg tea.KeyPressMsg) tea.Cmd {
	return t.r.workspacesAction(t.Pane.HandleKey(msg))
}

// Update implements tab: no message names the Workspaces tab.
func (t *workspacesTab) Update(tea.Msg) tea.Cmd { return nil }

// Paste implements tab: the Workspaces tab takes no text.
func (t *workspacesTab) Paste(tea.PasteMsg) {}

func (t *workspacesTab) saved() (savedTab, bool) { return savedTab{Workspaces: true}, true }

// tabMsgID names the tab a message is for, if it is for one: a tabMsg, or
// one of the editor's and terminal's own messages, which carry their ids.
func tabMsgID(msg tea.Msg) (string, bool) {
	switch msg := msg.(type) {
	case tabMsg:
		return msg.TabID(), true
	case editor.Highlighted:
		return editorTabID(msg.ID), true
	case terminal.Updated:
		return terminalTabID(msg.ID), true
	case terminal.Exited:
		return terminalTabID(msg.ID), true
	}
	return "", false
}
