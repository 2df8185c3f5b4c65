package sessions

import (
	"charm.land/bubbles/v2/key"

	"github.com/atelier-studio/atelier/tui/keys"
)

// KeyMap is the sessions pane's keys.
type KeyMap struct {
	Up, Down, Top, Bottom, Open, Filter, Status, Start, Archive, Fork, Delete key.Binding
}

// DefaultKeyMap returns the pane's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:      keys.New("previous session", "up", "k"),
		Down:    keys.New("next session", "down", "j"),
		Top:     keys.New("first session", "home", "g"),
		Bottom:  keys.New("last session", "end", "G"),
		Open:    keys.New("open its tab", "enter"),
		Filter:  keys.New("filter by title or agent", "/"),
		Status:  keys.New("cycle the status filter", "v"),
		Start:   keys.New("start a created session", "s"),
		Archive: keys.New("archive or unarchive", "a"),
		Fork:    keys.New("fork into a new session", "f"),
		Delete:  keys.New("delete (asks first)", "d"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{
		Name:     "Sessions",
		About:    "The sessions pane (top left). While the filter line is open it takes every key; `enter` keeps the filter, `esc` clears it.",
		Bindings: []key.Binding{k.Up, k.Down, k.Top, k.Bottom, k.Open, k.Filter, k.Status, k.Start, k.Archive, k.Fork, k.Delete},
		Short:    []string{"enter", "/", "s", "d"},
	}
}
