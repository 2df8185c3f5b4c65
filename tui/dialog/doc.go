// Package dialog holds the studio's modal boxes: the new-session form, a
// yes/no confirmation, a one-line prompt and the key help. A dialog takes
// every key while open and, when it closes, returns a Result saying how it
// closed; the root opened it with a continuation that acts on that Result,
// so a dialog never knows what it was opened for.
package dialog

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/frame"
)

// Result is what a key did to a dialog.
type Result struct {
	Closed bool               // the dialog is done, either way
	OK     bool               // confirmed or submitted (false: dismissed)
	Chosen int                // a palette's chosen entry, by its index in the entries given
	Text   string             // a prompt's text
	Create core.CreateOptions // the form's session
}

// Dialog is a modal box.
type Dialog interface {
	HandleKey(msg tea.KeyPressMsg) Result
	Paste(msg tea.PasteMsg)
	// View draws the box to fit inside width x height.
	View(width, height int) string
}

// box draws a dialog's frame around lines, as wide as it needs up to max.
func box(st themes.Styles, title string, lines []string, width, maxW, height int) string {
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	w = min(max(w+4, ansi.StringWidth(title)+6, width), maxW)
	h := min(len(lines)+2, height)
	padded := make([]string, len(lines))
	for i, l := range lines {
		padded[i] = " " + l
	}
	return frame.Box{Title: st.TitleFocused.Render(title), Border: st.Dialog, Width: w, Height: h, ContentRows: padded}.Render()
}

func wrap(text string, w int) []string {
	return strings.Split(ansi.Wrap(text, max(w, 10), ""), "\n")
}

// window is the part of a scrolled dialog's lines that fits a box of
// height (a frame and a footer line around it), from *off, which it keeps
// in range; a cut end says "↓ more".
func window(st themes.Styles, lines []string, off *int, height int) []string {
	room := max(height-4, 1)
	*off = min(*off, max(len(lines)-room, 0))
	lines = lines[*off:]
	if len(lines) > room {
		lines = append(lines[:room-1:room-1], st.Subtle.Render("↓ more"))
	}
	return lines
}
