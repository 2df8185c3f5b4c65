package tui

import (
	"strings"
	"testing"

	sess "github.com/atelier-studio/atelier/sessions"
)

// TestEscInterruptsTheTurn: in a session's tab, esc stops the running
// turn as s does; in the input line the first esc only leaves the line
// and the second interrupts. The stop leaves an "interrupted" line in the
// transcript, which a reload keeps; esc on a turn that does not run does
// nothing.
func TestEscInterruptsTheTurn(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.newDemo("stoppable", "say hello")
	h.until("the exec approval", func() bool { return strings.Contains(h.screen(), "$ ls -la") })
	id := h.app.tabs.visibleSession()
	status := func() sess.Status { return h.app.live.recs[id].Status }

	h.press("i")
	h.typeText("half a steer")
	h.press("esc")
	if h.app.takesText() {
		t.Fatal("the first esc leaves the input line")
	}
	h.pump(100e6)
	if status() != sess.Running {
		t.Fatalf("the esc that leaves the input line interrupts nothing (status %s)", status())
	}
	if strings.Contains(h.screen(), "■ interrupted") {
		t.Fatalf("nothing was interrupted yet:\n%s", h.screen())
	}

	h.press("esc")
	h.until("the stop", func() bool { return status() == sess.Waiting })
	if got := strings.Count(h.screen(), "■ interrupted"); got != 1 {
		t.Fatalf("the stop leaves one interrupted line in the transcript (%d):\n%s", got, h.screen())
	}

	h.press("esc")
	if s := h.app.status.recent(); strings.Contains(s, "cannot") {
		t.Fatalf("esc on a turn that does not run is nothing, not an error: %q", s)
	}
	h.run(h.app.ctl.reloadTranscript(id))
	if got := strings.Count(h.screen(), "■ interrupted"); got != 1 {
		t.Fatalf("a reload keeps the interrupted line (%d):\n%s", got, h.screen())
	}
}
