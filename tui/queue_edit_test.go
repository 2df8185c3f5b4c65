package tui

import (
	"strings"
	"testing"
)

// TestEditAQueuedPromptInPlace: prompts queued while a session runs are
// edited in place from the session's tab (up in the empty input line takes
// the last one, e the selected one), and the engine's queue keeps them in
// their places with the new text.
func TestEditAQueuedPromptInPlace(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.newDemo("greet", "say hello")
	h.until("the approval's card", func() bool { return strings.Contains(h.screen(), "⚠ approval: exec") })
	id := h.app.tabs.visibleSession()
	h.press("i")
	h.typeText("first")
	h.press("tab")
	h.typeText("second")
	h.press("tab")
	h.until("two queued prompts", func() bool { return strings.Contains(h.screen(), "2. prompt: second") })
	queued := func() []string {
		q, err := h.eng.Queue(id)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range q {
			out = append(out, c.ID+"="+c.Text)
		}
		return out
	}
	before := queued()

	h.press("up")
	if !strings.Contains(h.screen(), "edit 2 › second") {
		t.Fatalf("up in the empty line should edit the last queued prompt:\n%s", h.screen())
	}
	h.press("ctrl+u")
	h.typeText("second, said better")
	h.press("enter")
	h.until("the edited queue", func() bool { return strings.Contains(h.screen(), "2. prompt: second, said better") })

	h.press("esc", "{", "e")
	if !strings.Contains(h.screen(), "edit 1 › first") {
		t.Fatalf("e should edit the selected queued prompt:\n%s", h.screen())
	}
	h.typeText(" of all")
	h.press("enter")
	h.until("the first edited", func() bool { return strings.Contains(h.screen(), "1. prompt: first of all") })

	after := queued()
	want := []string{strings.Split(before[0], "=")[0] + "=first of all", strings.Split(before[1], "=")[0] + "=second, said better"}
	if strings.Join(after, "|") != strings.Join(want, "|") {
		t.Fatalf("the engine's queue: %q, want %q", after, want)
	}
	if !strings.Contains(h.screen(), "you: edited a queued input") {
		t.Errorf("the edit should be said in the status line:\n%s", h.screen())
	}
}
