package actions

import (
	"charm.land/bubbles/v2/key"

	"github.com/atelier-studio/atelier/tui/keys"
)

// KeyMap is the Action required pane's keys.
type KeyMap struct {
	Up, Down, Top, Bottom, AllowOnce, AllowSession, AllowPrefix, AlwaysHere, Deny, DenyMessage, ViewDiff, Answer, TakeDefault, Close, Cancel, Nudge key.Binding
}

// DefaultKeyMap returns the pane's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:           keys.New("previous item", "up", "k"),
		Down:         keys.New("next item", "down", "j"),
		Top:          keys.New("first item", "home", "g"),
		Bottom:       keys.New("last item", "end", "G"),
		AllowOnce:    keys.New("allow once", "a"),
		AllowSession: keys.New("allow for the rest of the session (a command: that command line only)", "A"),
		AllowPrefix:  keys.New("allow for the rest of the session the commands starting with some words (a command's approval; asks which words)", "S"),
		AlwaysHere:   keys.New("always allow this command (or this path) in this workspace: a rule kept for you, listed in the settings tab", "W"),
		Deny:         keys.New("deny", "d"),
		DenyMessage:  keys.New("deny with a message to the agent", "D"),
		ViewDiff:     keys.New("open the diff in a tab", "v"),
		Answer:       keys.New("answer the question / send the next instruction", "enter"),
		TakeDefault:  keys.New("take the default answer", "t"),
		Close:        keys.New("close the waiting session", "c"),
		Cancel:       keys.New("cancel the session (asks first)", "x"),
		Nudge:        keys.New("nudge: fire the parked timer now", "w"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{
		Name:  "Action required",
		About: "The list of what waits on you (bottom right). Keys act on the selected item; each item shows the keys that apply to it.",
		Bindings: []key.Binding{k.Up, k.Down, k.Top, k.Bottom, k.AllowOnce, k.AllowSession, k.AllowPrefix, k.AlwaysHere, k.Deny, k.DenyMessage, k.ViewDiff,
			k.Answer, k.TakeDefault, k.Close, k.Cancel, k.Nudge},
		Short: []string{"a", "d", "enter", "t"},
	}
}
