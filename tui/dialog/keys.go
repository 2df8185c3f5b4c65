package dialog

import (
	"charm.land/bubbles/v2/key"

	"github.com/atelier-studio/atelier/tui/keys"
)

// The dialogs' keys are data, one table per kind of dialog: a dialog
// matches a key against its table, draws its hints from it, and the help
// and docs/keybindings.md list the same tables, with the configuration's
// [keys] overrides applied (a dialog gets them through SetKeyMap).

// KeyMap holds every kind's table.
type KeyMap struct {
	Confirm ConfirmKeyMap
	Line    LineKeyMap
	Form    FormKeyMap
	Palette PaletteKeyMap
	Reader  ReaderKeyMap
}

// DefaultKeyMap returns the dialogs' default keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Confirm: ConfirmKeyMap{
			Yes: keys.New("confirm", "y", "enter", "Y"),
			No:  keys.New("keep things as they are", "n", "esc", "N", "q"),
		},
		Line: LineKeyMap{
			Submit: keys.New("send / confirm", "enter"),
			Cancel: keys.New("cancel", "esc"),
		},
		Form: FormKeyMap{
			Start:  keys.New("start the session", "enter"),
			Cancel: keys.New("cancel", "esc"),
			Next:   keys.New("next field", "tab", "down"),
			Prev:   keys.New("previous field", "shift+tab", "up"),
			Choose: keys.New("next choice", "right", "space", "l"),
			Back:   keys.New("previous choice", "left", "h"),
		},
		Palette: PaletteKeyMap{
			Run:   keys.New("run the chosen entry", "enter"),
			Close: keys.New("close", "esc"),
			Up:    keys.New("previous entry", "up", "ctrl+p"),
			Down:  keys.New("next entry", "down", "ctrl+n"),
		},
		Reader: ReaderKeyMap{
			Up:       keys.New("scroll up", "up", "k"),
			Down:     keys.New("scroll down", "down", "j"),
			PageUp:   keys.New("page up", "pgup"),
			PageDown: keys.New("page down", "pgdown", "space"),
			Top:      keys.New("the start", "home", "g"),
			Bottom:   keys.New("the end", "end", "G"),
		},
	}
}

// ConfirmKeyMap is a yes-or-no confirmation's.
type ConfirmKeyMap struct {
	Yes, No key.Binding
}

// Scope describes the table for the help and the reference.
func (k ConfirmKeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Confirmation", About: "A yes-or-no question before something is done.",
		Bindings: []key.Binding{k.Yes, k.No}, TakesKeys: true}
}

// LineKeyMap is a one-line prompt's and a typed confirmation's; its
// Cancel also dismisses a choice of answers, whose own keys are its
// options'.
type LineKeyMap struct {
	Submit, Cancel key.Binding
}

// Scope describes the table for the help and the reference.
func (k LineKeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Prompt", About: "A line to type (a message, a name, the folder's name to confirm a destroy); " +
		"every other key is typed. A choice of answers (a restore's preview) takes its options' keys, and cancel.",
		Bindings: []key.Binding{k.Submit, k.Cancel}, TakesKeys: true}
}

// FormKeyMap is the new-session form's.
type FormKeyMap struct {
	Start, Cancel, Next, Prev, Choose, Back key.Binding
}

// Scope describes the table for the help and the reference.
func (k FormKeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "New-session form", About: "Opened with `n`: a text field takes the keys typed; a field of choices " +
		"changes with the choice keys.",
		Bindings: []key.Binding{k.Start, k.Cancel, k.Next, k.Prev, k.Choose, k.Back}, TakesKeys: true}
}

// PaletteKeyMap is the command palette's and the tab list's.
type PaletteKeyMap struct {
	Run, Close, Up, Down key.Binding
}

// Scope describes the table for the help and the reference.
func (k PaletteKeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Palette", About: "Opened with `:` (and the open tabs' list): what is typed filters the entries.",
		Bindings: []key.Binding{k.Run, k.Close, k.Up, k.Down}, TakesKeys: true}
}

// ReaderKeyMap is a text's (an activity entry, the messages) and the key
// help's: any other key closes them.
type ReaderKeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

// Scope describes the table for the help and the reference.
func (k ReaderKeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Reading", About: "A text shown whole (an activity entry, the messages, this help): any other key closes it.",
		Bindings: []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, TakesKeys: true}
}

// keyed is a dialog that takes the studio's keymap.
type keyed interface{ SetKeyMap(KeyMap) }

// WithKeys gives d the keymap km when it takes one, and returns d.
func WithKeys(d Dialog, km KeyMap) Dialog {
	if k, ok := d.(keyed); ok {
		k.SetKeyMap(km)
	}
	return d
}

// hint is how a binding is named in a dialog's own line: its first n
// keys.
func hint(b key.Binding, n int) string {
	ks := b.Keys()
	return keys.Label(ks[:min(n, len(ks))])
}
