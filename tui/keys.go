package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/editor"
	"github.com/atelier-studio/atelier/tui/keys"
)

// GlobalKeyMap is the keys that act whatever pane has focus (unless it
// takes text).
type GlobalKeyMap struct {
	Quit, Help key.Binding
	// New is named "sessions.new" in the configuration: it makes one.
	New                                                   key.Binding `keys:"sessions.new"`
	NextPane, PrevPane, NextTab, PrevTab, CloseTab        key.Binding
	Palette, Terminal, Settings, CopyMode, Sides, Release key.Binding
	Zoom, Messages, Tabs, Wider, Narrower                 key.Binding
	// RunWorkflow and FireEvent start what runs beside the sessions
	// (starts.go), as the command line's workflow run and events fire.
	RunWorkflow, FireEvent key.Binding
	// Workspaces yields to a focused pane with a key of its own on it
	// (an approval's "always allow here"): see Scope.Yield.
	Workspaces key.Binding
}

// DefaultGlobalKeyMap returns the global keys.
func DefaultGlobalKeyMap() GlobalKeyMap {
	return GlobalKeyMap{
		Quit:        keys.New("quit (asks first while sessions run)", "q", "ctrl+c"),
		Help:        keys.New("keys of the focused pane", "?"),
		New:         keys.New("new session", "n"),
		NextPane:    keys.New("focus the next pane", "tab"),
		PrevPane:    keys.New("focus the previous pane", "shift+tab"),
		NextTab:     keys.New("next tab", ">"),
		PrevTab:     keys.New("previous tab", "<"),
		CloseTab:    keys.New("close the tab", "ctrl+w"),
		Palette:     keys.New("command palette: every action, by name", ":"),
		Terminal:    keys.New("open a terminal (a shell in the workspace)", "T"),
		Settings:    keys.New("settings: configuration, trust, notifications, destroy", ","),
		CopyMode:    keys.New("copy mode: release the mouse for the terminal's own selection, agents' answers shown as their Markdown source (again takes it back)", "M"),
		Sides:       keys.New("show or hide the side panes (narrow terminals)", "\\"),
		Release:     keys.New("from an editor or terminal: give the keys back to the studio (enter takes them again)", "ctrl+]"),
		Zoom:        keys.New("zoom: the focused pane or tab takes the whole screen, and back", "z"),
		Messages:    keys.New("messages: the recent status-line messages, whole", "ctrl+l"),
		Tabs:        keys.New("every open tab, to jump to one (the strip shows those that fit)", "ctrl+t"),
		Wider:       keys.New("widen the focused side pane (kept for the next studio)", "+"),
		Narrower:    keys.New("narrow the focused side pane", "-"),
		RunWorkflow: keys.New("run a workflow: pick one of the workspace's, give its input (JSON); the run shows in the sessions list", "ctrl+r"),
		FireEvent:   keys.New("fire a named event, with optional JSON data: parked sessions on it wake, its triggers fire", "E"),
		Workspaces: keys.New("the Workspaces tab: the workspace folder and its instances, to review, apply or discard them "+
			"(where the focused pane has W of its own, an approval's \"always allow here\", that acts instead)", "W"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k GlobalKeyMap) Scope() keys.Scope {
	return keys.Scope{
		Name: "Global",
		About: "Everywhere, except while a pane takes text (then only `ctrl+c`). Mouse: a click focuses a pane or picks a row or tab; the wheel scrolls the pane under the pointer; a drag inside a pane selects its text (that pane's only) and copies it on release (OSC 52); " +
			"dragging the border between a side column and the centre resizes the column (kept for the next studio, as with `+` and `-`). " +
			"`W` gives way to the focused pane when it binds `W` itself: on an approval, in the Action required pane or on a session tab's approval card, `W` is \"always allow here\".",
		Bindings: []key.Binding{k.Quit, k.Help, k.New, k.NextPane, k.PrevPane, k.NextTab, k.PrevTab, k.CloseTab,
			k.Palette, k.Terminal, k.Settings, k.Workspaces, k.RunWorkflow, k.FireEvent, k.CopyMode, k.Sides, k.Zoom, k.Messages, k.Tabs, k.Wider, k.Narrower, k.Release},
		Yield: k.Workspaces.Keys(),
		Short: []string{"n", ":", "tab", "?"},
	}
}

// Scopes returns every keymap of the studio, global first: the source of
// the help and of docs/keybindings.md.
func Scopes() []keys.Scope {
	k := defaultKeymaps()
	return k.scopes()
}

// focusedScope is the keymap of the pane with focus.
func (a *App) focusedScope() keys.Scope {
	switch a.scr.focus {
	case focusSessions:
		return a.sessions.KeyMap().Scope()
	case focusFiles:
		return a.files.KeyMap().Scope()
	case focusCenter:
		if t := a.tabs.current(); t != nil {
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
	switch a.scr.focus {
	case focusSessions:
		return a.sessions.TakesText()
	case focusActivity:
		return a.activity.TakesText()
	case focusCenter:
		if t := a.tabs.current(); t != nil {
			return t.TakesText()
		}
	}
	return false
}

// rawTab returns the visible tab when it has the focus and takes every
// key (an editor or terminal capturing).
func (a *App) rawFocus() rawTab {
	if a.scr.focus != focusCenter || a.dlg.dialog != nil {
		return nil
	}
	if t, ok := a.tabs.currentRaw(); ok && t.raw() {
		return t
	}
	return nil
}

// handleKey routes a key: an editor or terminal that captures the keys
// (all but the release chord), quit, the dialog, a pane taking text, the
// global keys, then the focused pane.
func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if t := a.rawFocus(); t != nil {
		if key.Matches(msg, a.keys.Release) {
			t.release()
			a.status.set("keys back to the studio · enter gives them to the tab again", false)
			return nil
		}
		return a.paneKey(msg)
	}
	if msg.String() == "ctrl+c" {
		return a.requestQuit(true)
	}
	if a.dlg.dialog != nil {
		res := a.dlg.dialog.HandleKey(msg)
		if !res.Closed {
			return nil
		}
		return a.dlg.closeDialog(res)
	}
	if a.takesText() {
		return a.paneKey(msg)
	}
	k := a.keys
	switch {
	case key.Matches(msg, k.Quit):
		return a.requestQuit(false)
	case key.Matches(msg, k.Help):
		a.dlg.open(dialog.NewHelp(a.st, a.focusedScope(), a.keys.Scope()), nil)
	case key.Matches(msg, k.New):
		a.dlg.open(a.inst.newForm(), onOK(func(r dialog.Result) tea.Cmd { return a.inst.createChecked(r.Create) }))
	case key.Matches(msg, k.NextPane):
		a.cycleFocus(1)
	case key.Matches(msg, k.PrevPane):
		a.cycleFocus(-1)
	case key.Matches(msg, k.NextTab):
		a.bringTab((a.tabs.active + 1) % max(a.tabs.len(), 1))
	case key.Matches(msg, k.PrevTab):
		a.bringTab((a.tabs.active + a.tabs.len() - 1) % max(a.tabs.len(), 1))
	case key.Matches(msg, k.CloseTab):
		return a.requestCloseTab(a.tabs.active)
	case key.Matches(msg, k.Palette):
		a.openPalette()
	case key.Matches(msg, k.Terminal):
		return a.work.openTerminal("shell", nil)
	case key.Matches(msg, k.Settings):
		return a.set.openSettings()
	case key.Matches(msg, k.RunWorkflow):
		return a.set.chooseWorkflow()
	case key.Matches(msg, k.FireEvent):
		a.set.askEvent()
	case key.Matches(msg, k.Workspaces) && !a.paneBinds(msg):
		return a.inst.openWorkspaces()
	case key.Matches(msg, k.CopyMode):
		a.scr.copyMode = !a.scr.copyMode
		a.tabs.showSource(a.scr.copyMode)
		if a.scr.copyMode {
			a.status.set("copy mode: the mouse is the terminal's, answers show as their source, select text as usual · M takes it back", false)
		} else {
			a.status.set("the mouse is the studio's again", false)
		}
	case key.Matches(msg, k.Sides):
		a.scr.sidesHidden = !a.scr.sidesHidden
		a.layout()
		if a.scr.sidesHidden && a.scr.focus != focusCenter && a.tabs.len() > 0 {
			a.setFocus(focusCenter)
		}
	case key.Matches(msg, k.Messages):
		a.view.showMessages()
	case key.Matches(msg, k.Tabs):
		a.listTabs()
	case key.Matches(msg, k.Wider) && a.scr.focus != focusCenter:
		return a.resizeSide(2)
	case key.Matches(msg, k.Narrower) && a.scr.focus != focusCenter:
		return a.resizeSide(-2)
	case key.Matches(msg, k.Zoom):
		a.scr.zoomed = !a.scr.zoomed
		a.layout()
	case key.Matches(msg, k.Release):
	default:
		return a.paneKey(msg)
	}
	return nil
}

// paneKey gives a key to the focused pane and carries out its action.
func (a *App) paneKey(msg tea.KeyPressMsg) tea.Cmd {
	switch a.scr.focus {
	case focusSessions:
		return a.ctl.sessionsAction(a.sessions.HandleKey(msg))
	case focusFiles:
		return a.files.HandleKey(msg)
	case focusActivity:
		if o := a.activity.HandleKey(msg); o != nil {
			if o.Detail != nil {
				a.view.showEntry(*o.Detail)
				return nil
			}
			return a.openSession(o.SessionID, true)
		}
	case focusActions:
		return a.ctl.actionRequired(a.actions.HandleKey(msg))
	case focusCenter:
		return a.centerKey(msg)
	}
	return nil
}

// centerKey gives a key to the visible tab.
func (a *App) centerKey(msg tea.KeyPressMsg) tea.Cmd {
	if t := a.tabs.current(); t != nil {
		return t.HandleKey(msg)
	}
	return nil
}

// requestCloseTab closes a tab, asking first for an editor with unsaved
// changes.
func (a *App) requestCloseTab(i int) tea.Cmd {
	if i < 0 || i >= a.tabs.len() {
		return nil
	}
	if t, ok := a.tabs.dirtyEditorAt(i); ok {
		a.selectTab(i)
		return a.work.editorAction(t, editor.Close{ID: t.ID(), Dirty: true})
	}
	return a.closeTabCmd(i)
}

func (a *App) paste(msg tea.PasteMsg) {
	switch {
	case a.dlg.dialog != nil:
		a.dlg.dialog.Paste(msg)
	case a.scr.focus == focusSessions:
		a.sessions.Paste(msg)
	case a.scr.focus == focusCenter:
		if t := a.tabs.current(); t != nil {
			t.Paste(msg)
		}
	}
}

// cycleFocus moves focus to the next pane, skipping the centre when it has
// no tab.
func (a *App) cycleFocus(d int) {
	f := a.scr.focus
	for range focusCount {
		f = (f + focus(d) + focusCount) % focusCount
		if f == focusCenter && a.tabs.len() > 0 || f != focusCenter && !a.scr.collapsed() {
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
	if t := a.tabs.current(); t != nil {
		t.Blur()
	}
	a.scr.focus = f
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
		if t := a.tabs.current(); t != nil {
			t.Focus()
			if id := a.tabs.visibleSession(); id != "" {
				a.sessions.SetMark(id, 0)
			}
		}
	}
	if a.scr.onePane() {
		a.layout() // the zoom follows the focus: the new pane takes the screen
	}
}

// paneBinds reports whether the focused pane has a key of its own for
// msg, so a global key that yields (GlobalKeyMap.Workspaces) gives way
// (TestAlwaysAllowHere: W on an approval's card).
func (a *App) paneBinds(msg tea.KeyPressMsg) bool {
	s := a.focusedScope()
	return s.Name != a.keys.Scope().Name && key.Matches(msg, s.Bindings...)
}
