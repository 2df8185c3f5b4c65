package tui

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
)

// The UI state: what the operator chose in the studio itself (a theme
// from the palette, the side panes' widths), kept per user in a small
// file of its own, never by rewriting config.toml, whose comments and
// order stay the user's. It is read before the first frame (the theme
// draws it) and written in a command after each change.

// UIState is the studio's remembered choices.
type UIState struct {
	Theme string `json:"theme,omitempty"` // a palette name, or "auto"
	Left  int    `json:"left,omitempty"`  // the left panes' width; 0: the default
	Right int    `json:"right,omitempty"` // the right panes' width; 0: the default
}

// UIStateFile is where the UI state is kept: in the user's state folder.
func UIStateFile() (string, error) {
	dir, err := sessions.UserStateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "ui.json"), nil
}

// loadUIState reads path; a missing file is an empty state, an unreadable
// one an empty state and the error to show.
func loadUIState(path string) (UIState, error) {
	var st UIState
	if path == "" {
		return st, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		return UIState{}, err
	}
	return st, nil
}

// uiSaved reports a write of the UI state.
type uiSaved struct{ err error }

// save writes the UI state to path in a command; "" keeps nothing (tests).
func (st UIState) save(path string) tea.Cmd {
	if path == "" {
		return nil
	}
	return func() tea.Msg {
		b, err := json.MarshalIndent(st, "", "  ")
		if err == nil {
			if err = os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
				err = sessions.WriteFileAtomic(path, append(b, '\n'), 0o600)
			}
		}
		return uiSaved{err}
	}
}

// chooseTheme switches the theme now and remembers it.
func (a *App) chooseTheme(name string) tea.Cmd {
	if name == "auto" {
		a.autoTheme = true
		a.restyle(themes.Build(themes.Dark(), a.opts.NoColor))
		a.ui.Theme = "auto"
		a.status.set("theme: auto (follows the terminal's background)", false)
		return tea.Batch(a.ui.save(a.opts.UIStateFile), tea.RequestBackgroundColor)
	}
	pal, err := themes.Named(name)
	if err != nil {
		a.status.set(err.Error(), true)
		return nil
	}
	a.autoTheme = false
	a.restyle(themes.Build(pal, a.opts.NoColor))
	a.ui.Theme = name
	a.status.set("theme: "+name+" (kept for the next studio)", false)
	return a.ui.save(a.opts.UIStateFile)
}

// resizeSide widens (d > 0) or narrows the focused side pane's column and
// remembers its width.
func (a *App) resizeSide(d int) tea.Cmd {
	left, right := a.scr.sideWidths()
	switch a.scr.focus {
	case focusActivity, focusActions:
		if right > 0 {
			a.ui.Right = clamp(right+d, minSide, a.scr.w-left-minCenter)
			break
		}
		// Stacked: every side pane is in the left column.
		a.ui.Left = clamp(left+d, minSide, a.scr.w-minCenter)
	case focusSessions, focusFiles:
		a.ui.Left = clamp(left+d, minSide, a.scr.w-right-minCenter)
	default:
		return nil
	}
	a.layout()
	return a.ui.save(a.opts.UIStateFile)
}

// Bounds of the columns when resized.
const (
	minSide   = 20
	minCenter = 40
)
