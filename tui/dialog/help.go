package dialog

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Help lists the keys of the focused pane and the global ones.
type Help struct {
	st     themes.Styles
	scopes []keys.Scope
	off    int
	keys   KeyMap
}

// NewHelp returns the help for scopes, the focused pane's first.
func NewHelp(st themes.Styles, scopes ...keys.Scope) *Help {
	return &Help{st: st, scopes: scopes, keys: DefaultKeyMap()}
}

// SetKeyMap gives the help the studio's keys.
func (h *Help) SetKeyMap(km KeyMap) { h.keys = km }

// HandleKey implements Dialog: the reader's keys scroll, anything else
// closes.
func (h *Help) HandleKey(msg tea.KeyPressMsg) Result {
	switch k := h.keys.Reader; {
	case key.Matches(msg, k.Up):
		h.off = max(h.off-1, 0)
		return Result{}
	case key.Matches(msg, k.Down):
		h.off++
		return Result{}
	case key.Matches(msg, k.PageUp):
		h.off = max(h.off-10, 0)
		return Result{}
	case key.Matches(msg, k.PageDown):
		h.off += 10
		return Result{}
	}
	return Result{Closed: true}
}

// Paste implements Dialog.
func (h *Help) Paste(tea.PasteMsg) {}

// View implements Dialog.
func (h *Help) View(width, height int) string {
	w := min(width-4, 70)
	var lines []string
	for i, s := range h.scopes {
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, h.st.Bold.Render(s.Name))
		lines = append(lines, s.HelpLines(h.st, w-4)...)
	}
	lines = window(h.st, lines, &h.off, height)
	lines = append(lines, h.st.Subtle.Render("any key closes"))
	return box(h.st, "Keys", lines, w, width, height)
}
