package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/keys"
)

// paletteAction is what a palette entry does: switch to a theme, or press
// a key of a scope as if pressed there.
type paletteAction struct {
	theme string
	scope string
	key   string
}

// openPalette opens the command palette over every action the studio has
// right now.
func (a *App) openPalette() {
	entries, acts := a.paletteEntries()
	a.dlg.open(dialog.NewPalette(a.st, "Command palette", entries), onOK(func(r dialog.Result) tea.Cmd {
		act := acts[r.Chosen]
		if act.theme != "" {
			return a.chooseTheme(act.theme)
		}
		return a.runPalette(act)
	}))
}

// paletteEntries lists every action the studio has right now, built from
// the keymaps: the global keys, every pane's, and the visible tab's. Each
// entry's action is at the same index.
func (a *App) paletteEntries() ([]dialog.Entry, []paletteAction) {
	scopes := []keys.Scope{a.keys.Scope(), a.sessions.KeyMap().Scope(), a.files.KeyMap().Scope(),
		a.activity.KeyMap().Scope(), a.actions.KeyMap().Scope()}
	if t := a.tabs.current(); t != nil {
		scopes = append(scopes, t.Scope())
	}
	var out []dialog.Entry
	var acts []paletteAction
	for _, name := range append(themes.Names(), "auto") {
		out = append(out, dialog.Entry{Scope: "Theme", Desc: "theme: " + name})
		acts = append(acts, paletteAction{theme: name})
	}
	for _, s := range scopes {
		for _, b := range s.Bindings {
			if b.Help().Desc == "" || len(b.Keys()) == 0 {
				continue
			}
			k := b.Keys()[0]
			if s.Name == a.keys.Scope().Name && (k == ":" || k == "ctrl+]") {
				continue // the palette itself, and a chord that means nothing here
			}
			out = append(out, dialog.Entry{Scope: s.Name, Key: b.Help().Key, Desc: b.Help().Desc})
			acts = append(acts, paletteAction{scope: s.Name, key: k})
		}
	}
	return out, acts
}

// runPalette carries out a chosen entry: it focuses the entry's pane and
// presses its key there.
func (a *App) runPalette(p paletteAction) tea.Cmd {
	msg := keys.Press(p.key)
	switch p.scope {
	case a.keys.Scope().Name:
		if key.Matches(msg, a.keys.Workspaces) {
			return a.inst.openWorkspaces() // from the palette W never means a pane's key
		}
		return a.handleKey(msg)
	case a.sessions.KeyMap().Scope().Name:
		a.setFocus(focusSessions)
	case a.files.KeyMap().Scope().Name:
		a.setFocus(focusFiles)
	case a.activity.KeyMap().Scope().Name:
		a.setFocus(focusActivity)
	case a.actions.KeyMap().Scope().Name:
		a.setFocus(focusActions)
	default:
		a.setFocus(focusCenter)
		if t, ok := a.tabs.currentRaw(); ok {
			t.recapture()
		}
	}
	return a.paneKey(msg)
}
