package tui

import (
	"strings"
	"testing"
	"time"
)

// TestMessagesKeepTheirOwnTimes: ctrl+l lists the status messages each
// with the time it was set, not the studio's last tick for them all (a
// quiet studio does not tick).
func TestMessagesKeepTheirOwnTimes(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	c := newClock()
	h.app.opts.Now = c.Now
	h.press("M") // copy mode: a message
	c.mu.Lock()
	c.t = c.t.Add(5*time.Minute + 7*time.Second)
	c.mu.Unlock()
	h.press("M") // and back: another, five minutes later
	h.press("ctrl+l")
	s := h.screen()
	first, second := "09:30:00  copy mode", "09:35:07  the mouse is the studio's again"
	if !strings.Contains(s, first) || !strings.Contains(s, second) {
		t.Fatalf("each message with its own time (%q, %q):\n%s", first, second, s)
	}
}
