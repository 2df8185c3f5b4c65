package tui

import (
	"strings"
	"testing"
)

// TestDiffTabCountsHunksFromOne: the diff tab of a write approval opens
// at the file's header lines and names the hunk coming as 1 of 1, not 0.
func TestDiffTabCountsHunksFromOne(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.newDemo("greet", "say hello")
	h.until("the exec approval", func() bool { return strings.Contains(h.screen(), "⚠ approval: exec") })
	h.press("a")
	h.until("the question", func() bool { return strings.Contains(h.screen(), "? question:") })
	h.press("enter", "enter") // its default
	h.until("the write approval", func() bool { return strings.Contains(h.screen(), "⚠ approval: write") })
	h.press("v")
	h.until("the diff tab", func() bool { return strings.Contains(h.screen(), "+5 -0 · hunk") })
	if s := h.screen(); !strings.Contains(s, "+5 -0 · hunk 1/1 · ") {
		t.Fatalf("the diff's header counts its one hunk from 1:\n%s", s)
	}
}
