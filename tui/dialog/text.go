package dialog

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Text shows text whole, wrapped to the dialog's width instead of cut:
// what a pane or the status line had to shorten (:messages). Arrows and
// pages scroll; any other key closes it.
type Text struct {
	st    themes.Styles
	title string
	text  string
	off   int
	keys  KeyMap
}

// NewText returns a dialog showing text.
func NewText(st themes.Styles, title, text string) *Text {
	return &Text{st: st, title: title, text: text, keys: DefaultKeyMap()}
}

// SetKeyMap gives the dialog the studio's keys.
func (t *Text) SetKeyMap(km KeyMap) { t.keys = km }

// HandleKey implements Dialog.
func (t *Text) HandleKey(msg tea.KeyPressMsg) Result {
	switch k := t.keys.Reader; {
	case key.Matches(msg, k.Up):
		t.off = max(t.off-1, 0)
	case key.Matches(msg, k.Down):
		t.off++
	case key.Matches(msg, k.PageUp):
		t.off = max(t.off-10, 0)
	case key.Matches(msg, k.PageDown):
		t.off += 10
	case key.Matches(msg, k.Top):
		t.off = 0
	case key.Matches(msg, k.Bottom):
		t.off = keys.Far // View clamps it to the last screen
	default:
		return Result{Closed: true}
	}
	return Result{}
}

// Paste implements Dialog.
func (t *Text) Paste(tea.PasteMsg) {}

// View implements Dialog.
func (t *Text) View(width, height int) string {
	w := min(width-4, 100)
	inner := max(w-4, 10)
	var lines []string
	for _, l := range strings.Split(t.text, "\n") {
		// Continuation lines are indented, so each entry reads as one.
		wrapped := strings.Split(ansi.Wrap(l, inner, " "), "\n")
		for i, x := range wrapped {
			if i > 0 {
				x = "  " + x
			}
			lines = append(lines, x)
		}
	}
	lines = window(t.st, lines, &t.off, height)
	lines = append(lines, t.st.Subtle.Render(hint(t.keys.Reader.Up, 1)+" "+hint(t.keys.Reader.Down, 1)+" scroll · any other key closes"))
	return box(t.st, t.title, lines, w, width, height)
}
