package dialog

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/themes"
)

// Confirm asks yes or no. Enter or y confirms; esc or n declines.
type Confirm struct {
	st    themes.Styles
	title string
	text  string
	yes   string
	keys  KeyMap
}

// SetKeyMap gives the confirmation the studio's keys.
func (c *Confirm) SetKeyMap(km KeyMap) { c.keys = km }

// NewConfirm returns a confirmation; yes labels the confirming key.
func NewConfirm(st themes.Styles, title, text, yes string) *Confirm {
	return &Confirm{st: st, title: title, text: text, yes: yes, keys: DefaultKeyMap()}
}

// HandleKey implements Dialog.
func (c *Confirm) HandleKey(msg tea.KeyPressMsg) Result {
	switch k := c.keys.Confirm; {
	case key.Matches(msg, k.Yes):
		return Result{Closed: true, OK: true}
	case key.Matches(msg, k.No):
		return Result{Closed: true}
	}
	return Result{}
}

// Paste implements Dialog.
func (c *Confirm) Paste(tea.PasteMsg) {}

// View implements Dialog.
func (c *Confirm) View(width, height int) string {
	lines := wrap(c.text, min(width-8, 60))
	lines = append(lines, "", c.st.Key.Render(hint(c.keys.Confirm.Yes, 2))+" "+c.st.Hint.Render(c.yes)+"   "+
		c.st.Key.Render(hint(c.keys.Confirm.No, 2))+" "+c.st.Hint.Render("keep things as they are"))
	return box(c.st, c.title, lines, 30, width, height)
}
