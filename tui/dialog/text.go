package dialog

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

// Text shows text whole, wrapped to the dialog's width instead of cut:
// what a pane or the status line had to shorten (:messages). Arrows and
// pages scroll; any other key closes it.
type Text struct {
	st    themes.Styles
	title string
	text  string
	off   int
}

// NewText returns a dialog showing text.
func NewText(st themes.Styles, title, text string) *Text {
	return &Text{st: st, title: title, text: text}
}

// HandleKey implements Dialog.
func (t *Text) HandleKey(msg tea.KeyPressMsg) Result {
	switch msg.String() {
	case "up", "k":
		t.off = max(t.off-1, 0)
	case "down", "j":
		t.off++
	case "pgup":
		t.off = max(t.off-10, 0)
	case "pgdown", "space":
		t.off += 10
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
	lines = append(lines, t.st.Subtle.Render("↑ ↓ scroll · any other key closes"))
	return box(t.st, t.title, lines, w, width, height)
}
