package tui

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/internal/golden"
	sess "github.com/atelier-studio/atelier/sessions"
)

// TestClearInThePrompt: /clear sent alone in a session's input line clears
// its conversation (it enters the queue as the engine's clear, which
// applies between turns) and is never sent to the agent as a prompt.
func TestClearInThePrompt(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.newDemo("greet", "say hello")
	h.until("the approval's card", func() bool { return strings.Contains(h.screen(), "⚠ approval: exec") })
	id := h.app.tabs.visibleSession()
	h.press("i")
	h.typeText("/clear")
	h.press("enter")
	h.until("the clear in the status line and the activity", func() bool {
		return strings.Contains(h.screen(), "greet: you: cleared the conversation") &&
			h.logged("greet: you: cleared the conversation: the agent is shown nothing said before")
	})
	q, err := h.eng.Queue(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q[0].Kind != sess.CtlClear {
		t.Fatalf("the queue holds the clear alone, nothing sent to the agent: %+v", q)
	}
	if !strings.Contains(h.screen(), "steer ›  enter steers the turn") {
		t.Fatalf("the input line is emptied, as by any send:\n%s", h.screen())
	}
}

// TestClearKeyAsks: N in a session's tab (and its palette entry) asks
// before clearing the conversation; the confirm dialog says what a clear
// keeps.
func TestClearKeyAsks(t *testing.T) {
	h := goldenWorkspace(t)
	h.press("down", "enter") // the older session: "fix the flaky tests"
	h.until("the transcript", func() bool { return !strings.Contains(h.screen(), "loading") })
	h.press("N")
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden.Check(t, "clear-confirm-120x40.txt", s)
	h.press("esc")
	if h.app.dlg.dialog != nil {
		t.Fatal("esc keeps things as they are")
	}

	// The palette lists it with the tab's keys.
	h.press(":")
	h.typeText("clear the conversation")
	h.press("enter")
	if !strings.Contains(h.screen(), "Clear the conversation of “fix the flaky tests”?") {
		t.Fatalf("the palette's entry asks as N does:\n%s", h.screen())
	}
}
