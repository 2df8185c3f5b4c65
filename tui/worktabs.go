package tui

import (
	"strconv"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/tui/editor"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/terminal"
)

// capture is the state of a tab that can take every key (an editor, a
// terminal): focusing it captures the keys; the release chord gives them
// back to the studio while the tab stays in view, and enter takes them
// again.
type capture struct{ on bool }

// TakesText implements tab.
func (c *capture) TakesText() bool { return c.on }

// raw reports whether the tab takes every key, ctrl+c included.
func (c *capture) raw() bool { return c.on }

// editorTab is a file's editor.
type editorTab struct {
	*editor.Editor
	capture
	r editorRoot
	// deleted says the file was deleted on disk since it was opened: the
	// label says so, and a save asks before it writes the file again.
	deleted bool
	// saving is the content of the save in flight: a change on disk that
	// reads the same is that save's echo.
	saving []byte
}

// Label implements tab.
func (t *editorTab) Label(width int) string {
	l := t.Editor.Label()
	if t.deleted {
		l += " (deleted)"
	}
	return ansi.Truncate(l, width, "…")
}

// Focus implements tab: the editor captures the keys.
func (t *editorTab) Focus() { t.on = true; t.Editor.Focus() }

// Blur implements tab.
func (t *editorTab) Blur() { t.on = false; t.Editor.Blur() }

// Scope implements tab.
func (t *editorTab) Scope() keys.Scope { return t.KeyMap().Scope() }

// termTab is a terminal.
type termTab struct {
	*terminal.Tab
	capture
	r termRoot
}

// Focus implements tab: the terminal captures the keys.
func (t *termTab) Focus() { t.on = true; t.Tab.Focus() }

// Blur implements tab.
func (t *termTab) Blur() { t.on = false; t.Tab.Blur() }

// Scope implements tab.
func (t *termTab) Scope() keys.Scope { return t.KeyMap().Scope() }

// TakesText implements tab: in copy mode the tab has every key too (q
// leaves copy mode, it does not quit).
func (t *termTab) TakesText() bool { return t.on || t.Copying() }

// copyKey acts on a key in copy mode and copies what it selected.
func (t *termTab) copyKey(msg tea.KeyPressMsg) tea.Cmd {
	res := t.CopyKey(msg)
	switch {
	case res.Text != "":
		t.r.say("copied "+strconv.Itoa(utf8.RuneCountInString(res.Text))+" characters", false)
		return tea.SetClipboard(res.Text)
	case res.Note != "":
		t.r.say(res.Note, false)
	case res.Left:
		t.r.say("copy mode ended", false)
	}
	return nil
}

// rawTab is a tab that may take every key.
type rawTab interface {
	tab
	raw() bool
	release()
	recapture()
}

func (c *capture) release()   { c.on = false }
func (c *capture) recapture() { c.on = true }

var (
	_ rawTab = (*editorTab)(nil)
	_ rawTab = (*termTab)(nil)
)

// addTab opens a tab, shows it and gives it the keys.
func (a *App) addTab(t tab) {
	a.tabs.add(t)
	a.selectTab(a.tabs.len() - 1)
	a.setFocus(focusCenter)
	if a.scr.narrow() {
		a.scr.sidesHidden = true
		a.layout()
	}
}

// closeTabCmd closes tab i and returns what must run after: a terminal's
// program is ended and its pty freed in a command.
func (a *App) closeTabCmd(i int) tea.Cmd {
	if i < 0 || i >= a.tabs.len() {
		return nil
	}
	var cmd tea.Cmd
	if tt, ok := a.tabs.terminalAt(i); ok {
		cmd = func() tea.Msg { tt.Close(); return nil }
	}
	a.closeTab(i)
	return cmd
}

// closeTabID closes the tab with an id (a terminal whose program ended
// on the operator's key): see closeTabCmd.
func (a *App) closeTabID(id string) tea.Cmd { return a.closeTabCmd(a.tabs.index(id)) }
