package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/activity"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/diff"
	"github.com/atelier-studio/atelier/tui/files"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/sessions"
	"github.com/atelier-studio/atelier/tui/transcript"
)

// GlobalKeyMap is the keys that act whatever pane has focus (unless it
// takes text).
type GlobalKeyMap struct {
	Quit, Help, New, NextPane, PrevPane, NextTab, PrevTab, CloseTab key.Binding
}

// DefaultGlobalKeyMap returns the global keys.
func DefaultGlobalKeyMap() GlobalKeyMap {
	return GlobalKeyMap{
		Quit:     keys.New("quit (asks first while sessions run)", "q", "ctrl+c"),
		Help:     keys.New("keys of the focused pane", "?"),
		New:      keys.New("new session", "n"),
		NextPane: keys.New("focus the next pane", "tab"),
		PrevPane: keys.New("focus the previous pane", "shift+tab"),
		NextTab:  keys.New("next tab", ">"),
		PrevTab:  keys.New("previous tab", "<"),
		CloseTab: keys.New("close the tab", "ctrl+w"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k GlobalKeyMap) Scope() keys.Scope {
	return keys.Scope{
		Name:     "Global",
		About:    "Everywhere, except while a pane takes text (then only `ctrl+c`). Mouse: a click focuses a pane or picks a row or tab; the wheel scrolls the pane under the pointer.",
		Bindings: []key.Binding{k.Quit, k.Help, k.New, k.NextPane, k.PrevPane, k.NextTab, k.PrevTab, k.CloseTab},
		Short:    []string{"n", "tab", "?", "q/ctrl+c"},
	}
}

// Scopes returns every keymap of the studio, global first: the source of
// the help and of docs/keybindings.md.
func Scopes() []keys.Scope {
	return []keys.Scope{
		DefaultGlobalKeyMap().Scope(),
		sessions.DefaultKeyMap().Scope(),
		files.DefaultKeyMap().Scope(),
		transcript.DefaultKeyMap().Scope(),
		diff.DefaultKeyMap().Scope(),
		activity.DefaultKeyMap().Scope(),
		actions.DefaultKeyMap().Scope(),
		dialogScope(),
	}
}

func dialogScope() keys.Scope {
	return keys.Scope{Name: "Dialogs", About: "The new-session form, confirmations and prompts take every key while open.",
		Bindings: []key.Binding{
			keys.New("start / confirm / send", "enter"),
			keys.New("confirm", "y"),
			keys.New("cancel", "esc", "n"),
			keys.New("next field (form)", "tab", "down"),
			keys.New("previous field (form)", "shift+tab", "up"),
			keys.New("change a choice (form)", "left", "right", "space"),
		}}
}

// focusedScope is the keymap of the pane with focus.
func (a *App) focusedScope() keys.Scope {
	switch a.focus {
	case focusSessions:
		return a.sessions.KeyMap().Scope()
	case focusFiles:
		return a.files.KeyMap().Scope()
	case focusCenter:
		if t := a.currentTab(); t != nil {
			return t.Scope()
		}
	case focusActivity:
		return a.activity.KeyMap().Scope()
	case focusActions:
		return a.actions.KeyMap().Scope()
	}
	return a.keys.Scope()
}

// takesText reports whether the focused pane takes every key.
func (a *App) takesText() bool {
	switch a.focus {
	case focusSessions:
		return a.sessions.TakesText()
	case focusCenter:
		if t := a.currentTab(); t != nil {
			return t.TakesText()
		}
	}
	return false
}

// handleKey routes a key: quit, the dialog, a pane taking text, the global
// keys, then the focused pane.
func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return a.requestQuit(true)
	}
	if a.dialog != nil {
		res := a.dialog.HandleKey(msg)
		if !res.Closed {
			return nil
		}
		a.dialog = nil
		return a.dialogDone(res)
	}
	if a.takesText() {
		return a.paneKey(msg)
	}
	k := a.keys
	switch {
	case key.Matches(msg, k.Quit):
		return a.requestQuit(false)
	case key.Matches(msg, k.Help):
		a.dialog = dialog.NewHelp(a.st, a.focusedScope(), a.keys.Scope())
	case key.Matches(msg, k.New):
		a.dialog = dialog.NewForm(a.st, a.opts.Agents, a.opts.Now)
	case key.Matches(msg, k.NextPane):
		a.cycleFocus(1)
	case key.Matches(msg, k.PrevPane):
		a.cycleFocus(-1)
	case key.Matches(msg, k.NextTab):
		a.selectTab((a.active + 1) % max(len(a.tabs), 1))
	case key.Matches(msg, k.PrevTab):
		a.selectTab((a.active + len(a.tabs) - 1) % max(len(a.tabs), 1))
	case key.Matches(msg, k.CloseTab):
		a.closeTab(a.active)
	default:
		return a.paneKey(msg)
	}
	return nil
}

// paneKey gives a key to the focused pane and carries out its action.
func (a *App) paneKey(msg tea.KeyPressMsg) tea.Cmd {
	switch a.focus {
	case focusSessions:
		return a.sessionsAction(a.sessions.HandleKey(msg))
	case focusFiles:
		return a.files.HandleKey(msg)
	case focusActivity:
		if o := a.activity.HandleKey(msg); o != nil {
			return a.openSession(o.SessionID, true)
		}
	case focusActions:
		return a.actionRequired(a.actions.HandleKey(msg))
	case focusCenter:
		switch t := a.currentTab().(type) {
		case *sessionTab:
			return a.tabAction(t.HandleKey(msg))
		case *diffTab:
			t.HandleKey(msg)
		}
	}
	return nil
}

func (a *App) paste(msg tea.PasteMsg) {
	switch {
	case a.dialog != nil:
		a.dialog.Paste(msg)
	case a.focus == focusSessions:
		a.sessions.Paste(msg)
	case a.focus == focusCenter:
		if t, ok := a.currentTab().(*sessionTab); ok {
			t.Paste(msg)
		}
	}
}

// cycleFocus moves focus to the next pane, skipping the centre when it has
// no tab.
func (a *App) cycleFocus(d int) {
	f := a.focus
	for range focusCount {
		f = (f + focus(d) + focusCount) % focusCount
		if f != focusCenter || len(a.tabs) > 0 {
			break
		}
	}
	a.setFocus(f)
}

// setFocus gives the keys to one pane.
func (a *App) setFocus(f focus) {
	a.sessions.Blur()
	a.files.Blur()
	a.activity.Blur()
	a.actions.Blur()
	if t := a.currentTab(); t != nil {
		t.Blur()
	}
	a.focus = f
	switch f {
	case focusSessions:
		a.sessions.Focus()
	case focusFiles:
		a.files.Focus()
	case focusActivity:
		a.activity.Focus()
	case focusActions:
		a.actions.Focus()
	case focusCenter:
		if t := a.currentTab(); t != nil {
			t.Focus()
			if st, ok := t.(*sessionTab); ok {
				a.sessions.SetMark(st.ID(), 0)
			}
		}
	}
}
