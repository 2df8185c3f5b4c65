package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPromptTakesSeveralLines: in a session's input line shift+enter,
// alt+enter and "\" then enter each break the line, a pasted block keeps
// its lines (a CRLF as one break), the box shows them on rows of their
// own, and the prompt reaches the engine with its line breaks.
func TestPromptTakesSeveralLines(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.newDemo("greet", "say hello")
	h.until("the approval's card", func() bool { return strings.Contains(h.screen(), "⚠ approval: exec") })
	id := h.app.tabs.visibleSession()

	h.press("i")
	h.typeText("first")
	h.send(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift})
	h.typeText("second")
	h.send(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt})
	h.typeText(`third\`)
	h.press("enter")
	h.send(tea.PasteMsg{Content: "fourth\r\n  fifth"})
	if !h.app.takesText() {
		t.Fatal("the newline keys keep the input line open: none of them sends")
	}
	s := h.screen()
	indent := "│" + strings.Repeat(" ", len([]rune("steer › ")))
	for i, row := range []string{"steer › first ", indent + "second ", indent + "third ", indent + "fourth ", indent + "  fifth "} {
		if !strings.Contains(s, row) {
			t.Fatalf("the box shows its line %d on a row of its own (%q):\n%s", i+1, row, s)
		}
	}

	h.press("tab")
	want := "first\nsecond\nthird\nfourth\n  fifth"
	h.until("the queued prompt", func() bool {
		q, err := h.eng.Queue(id)
		if err != nil {
			t.Fatal(err)
		}
		return len(q) == 1 && q[0].Text == want
	})
}
