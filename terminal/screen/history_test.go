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
	lines, sb := s.History()
	if sb != s.ScrollbackLen() || len(lines) != sb+10 {
		t.Fatalf("%d lines with %d of scrollback, want the scrollback (%d) and 10 rows", len(lines), sb, s.ScrollbackLen())
	}
	if got := strings.TrimSpace(ansi.Strip(lines[0])); got != "1" {
		t.Errorf("the oldest line is %q, want 1", got)
	}
	for i, l := range lines[:50] {
		if got, want := strings.TrimSpace(ansi.Strip(l)), strconv.Itoa(i+1); got != want {
			t.Fatalf("line %d is %q, want %q", i, got, want)
		}
	}
}
