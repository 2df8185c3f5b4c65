package screen

import (
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/terminal"
)

// TestHistoryIsScrollbackThenScreen: History is every kept line in order,
// the scrollback's count first, each line as the screen draws it.
func TestHistoryIsScrollbackThenScreen(t *testing.T) {
	s := startShell(t, terminal.Size{Cols: 40, Rows: 10}, Options{Scrollback: 100}, "/bin/sh", "-c", "seq 1 50; sleep 30")
	waitScreen(t, s, "the end of the output", contains("50"))
	h := s.History()
	lines, sb := h.Lines, h.Scrollback
	if sb != s.ScrollbackLen() || len(lines) != sb+10 {
		t.Fatalf("%d lines with %d of scrollback, want the scrollback (%d) and 10 rows", len(lines), sb, s.ScrollbackLen())
	}
	if h.CursorX != 0 || sb+h.CursorY != 50 {
		t.Errorf("the cursor is at %d,%d on the screen, want the start of the line after 50", h.CursorX, h.CursorY)
	}
	for i, l := range lines[:50] {
		if got, want := strings.TrimSpace(ansi.Strip(l)), strconv.Itoa(i+1); got != want {
			t.Fatalf("line %d is %q, want %q", i, got, want)
		}
	}
}
