package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/internal/golden"
)

// TestGoldenStacked80x24: at 80x24 the side panes share the left column
// and the centre, with a session's transcript and prompt, takes the rest
// of the width (it had 26 columns inside between two side columns); every
// side pane still shows, and a click reaches Action required.
func TestGoldenStacked80x24(t *testing.T) {
	h := goldenWorkspace(t)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.press("down", "enter") // the older session: "fix the flaky tests"
	h.until("the transcript", func() bool { return !strings.Contains(h.screen(), "loading") })
	s := h.screen()
	checkSize(t, s, 80, 24)
	golden.Check(t, "session-tab-80x24.txt", s)

	ar := h.app.scr.areas()
	if inside := ar.center.w - 2; inside < 50 {
		t.Errorf("the centre is %d columns inside at 80x24, want at least 50", inside)
	}
	for _, title := range []string{"╭─ Sessions", "╭─ Files", "╭─ Activity", "╭─ Action required"} {
		if !strings.Contains(s, title) {
			t.Errorf("%q is not on the screen at 80x24:\n%s", title, s)
		}
	}
	h.send(tea.MouseClickMsg{X: ar.actions.x + 2, Y: ar.actions.y + 1, Button: tea.MouseLeft})
	h.send(tea.MouseReleaseMsg{X: ar.actions.x + 2, Y: ar.actions.y + 1, Button: tea.MouseLeft})
	if h.app.scr.focus != focusActions {
		t.Errorf("a click on Action required focuses it: focus is %d", h.app.scr.focus)
	}
	// The keys that widen a side pane widen the one column, the centre
	// keeping its minimum.
	h.press("+")
	if left := h.app.scr.areas().sessions.w; left != ar.sessions.w+2 || h.app.scr.areas().actions.w != left {
		t.Errorf("+ on Action required: the left column is %d (actions %d), want %d", left, h.app.scr.areas().actions.w, ar.sessions.w+2)
	}
}

// TestGoldenStudio80x24 is the studio at 80x24 before any tab opens.
func TestGoldenStudio80x24(t *testing.T) {
	h := goldenWorkspace(t)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	s := h.screen()
	checkSize(t, s, 80, 24)
	golden.Check(t, "studio-80x24.txt", s)
}
