package tui

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
)

// TestGMeansBottom: G goes to the bottom and g to the top wherever there
// is a list or a text to move through (as in vim and lazygit): the
// sessions list, the file tree, the session's transcript; the grants
// moved off G to P.
func TestGMeansBottom(t *testing.T) {
	h := goldenWorkspace(t)

	sel := func() string { s, _ := h.app.sessions.Selected(); return s.Title }
	h.app.setFocus(focusSessions)
	h.press("g")
	first := sel()
	h.press("k")
	if sel() != first {
		t.Fatalf("g selects the first session: k still moved from %q to %q", first, sel())
	}
	h.press("G")
	last := sel()
	h.press("j")
	if last == first || sel() != last {
		t.Fatalf("G selects the last session (first %q, after G %q, after j %q)", first, last, sel())
	}

	path := func() string { r, _ := h.app.files.Selected(); return r.Path }
	h.app.setFocus(focusFiles)
	h.press("G")
	bottom := path()
	h.press("j")
	if bottom != "README.md" || path() != bottom {
		t.Fatalf("G selects the tree's last entry (after G %q, after j %q)", bottom, path())
	}
	h.press("g")
	if path() != "core" {
		t.Fatalf("g selects the first entry again: %q", path())
	}

	rec, err := h.eng.Create(core.CreateOptions{Title: "long task", Agent: "demo", AutoStart: true,
		Instructions: strings.TrimSpace(strings.Repeat("one line of a long task\n", 80))})
	if err != nil {
		t.Fatal(err)
	}
	h.until("its record", func() bool { _, ok := h.app.live.recs[rec.ID]; return ok })
	h.run(h.app.openSession(rec.ID, true))
	h.until("the exec approval", func() bool { return strings.Contains(h.screen(), "$ ls -la") })
	tr := h.app.tabs.session(rec.ID).Transcript()
	h.press("g")
	if tr.Following() || !strings.Contains(h.screen(), "one line of a long task") {
		t.Fatalf("g shows the first message and stops following:\n%s", h.screen())
	}
	h.press("G")
	if !tr.Following() || !strings.Contains(h.screen(), "Here is my plan") {
		t.Fatalf("G goes back to the newest line and follows it:\n%s", h.screen())
	}
}
