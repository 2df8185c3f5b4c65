package tui

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
)

// TestNewOutputBelowAScrolledTranscript: scrolled up while the session
// goes on, the transcript's last row says output arrived below (as the
// activity pane counts the entries above); following again clears it.
func TestNewOutputBelowAScrolledTranscript(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	rec, err := h.eng.Create(core.CreateOptions{Title: "long task", Agent: "demo", AutoStart: true,
		Instructions: strings.TrimSpace(strings.Repeat("one line of a long task\n", 80))})
	if err != nil {
		t.Fatal(err)
	}
	h.until("its record", func() bool { _, ok := h.app.live.recs[rec.ID]; return ok })
	h.run(h.app.openSession(rec.ID, true))
	h.until("the exec approval", func() bool { return strings.Contains(h.screen(), "$ ls -la") })
	if strings.Contains(h.screen(), "new output below") {
		t.Fatalf("following, nothing is below:\n%s", h.screen())
	}
	h.press("g")
	if strings.Contains(h.screen(), "new output below") {
		t.Fatalf("scrolled up, the mark waits for output:\n%s", h.screen())
	}
	h.press("a") // the card: allow the command once; the demo goes on
	h.until("the question", func() bool { return strings.Contains(h.screen(), "? question:") })
	if s := h.screen(); !strings.Contains(s, "↓ new output below · ") || !strings.Contains(s, " · end/G follows") {
		t.Fatalf("the last row says output arrived below, and how to follow it:\n%s", s)
	}
	if !strings.Contains(h.screen(), "one line of a long task") {
		t.Fatalf("the view stays where it was scrolled:\n%s", h.screen())
	}
	h.press("G")
	if s := h.screen(); strings.Contains(s, "new output below") {
		t.Fatalf("following again clears the mark:\n%s", s)
	}
}
