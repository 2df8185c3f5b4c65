package tui

import (
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/internal/golden"
)

// reversed is the text of the reversed runs (the selection's highlight
// without colours) on each row of the drawn screen.
func reversed(h *harnessT) map[int][]string {
	runs := map[int][]string{}
	for y, l := range strings.Split(h.app.Render(), "\n") {
		for _, m := range reverseRun.FindAllStringSubmatch(l, -1) {
			if m[1] != "" { // a style carried past cut cells draws nothing
				runs[y] = append(runs[y], m[1])
			}
		}
	}
	return runs
}

var reverseRun = regexp.MustCompile("\x1b\\[7m([^\x1b]*)")

// TestMouseSelectsWithinOnePane: a drag that starts in the centre and
// runs on into the activity column selects the centre's text only,
// highlighted while the button is held, copied to the clipboard on
// release, and the status line says how much.
func TestMouseSelectsWithinOnePane(t *testing.T) {
	h := goldenWorkspace(t)
	c := h.app.scr.areas().center
	y := c.y + 2 // "  Atelier"
	if !strings.Contains(strings.Split(h.screen(), "\n")[y], "  Atelier") {
		t.Fatalf("row %d is not the welcome's title:\n%s", y, h.screen())
	}
	before := reversed(h)
	h.send(tea.MouseClickMsg{X: c.x + 3, Y: y, Button: tea.MouseLeft})
	h.send(tea.MouseMotionMsg{X: c.x + 20, Y: y + 1, Button: tea.MouseLeft})
	h.send(tea.MouseMotionMsg{X: h.app.scr.w - 5, Y: y + 3, Button: tea.MouseLeft}) // over the activity pane
	lit := reversed(h)
	inside := c.w - 2
	for row, want := range map[int]string{y: "Atelier", y + 1: "  Run agent", y + 2: "", y + 3: "  n       start"} {
		width := inside
		if row == y {
			width = inside - 2 // from the press to the pane's right edge
		}
		new := lit[row][len(before[row]):]
		if len(new) != 1 || !strings.HasPrefix(new[0], want) || ansi.StringWidth(new[0]) != width {
			t.Errorf("row %d: highlighted %q, want one run of %d cells from %q", row, new, width, want)
		}
	}
	if len(lit) != len(before)+3 { // row y+4 on is not selected
		t.Errorf("highlighted rows %v, want %d more than %v", lit, 3, before)
	}
	if len(h.clip) != 0 {
		t.Fatalf("copied before the release: %q", h.clip)
	}
	h.send(tea.MouseReleaseMsg{X: h.app.scr.w - 5, Y: y + 3, Button: tea.MouseLeft})
	want := "Atelier\n  Run agent sessions on this workspace and steer them live.\n\n  n       start a session (the demo agent needs no setup)"
	if len(h.clip) != 1 || h.clip[0] != want {
		t.Fatalf("the clipboard got %q, want %q", h.clip, want)
	}
	s := h.screen()
	if !strings.Contains(s, "copied 126 characters") {
		t.Errorf("the status line should say what was copied:\n%s", s)
	}
	if got := reversed(h); len(got) != len(before) {
		t.Errorf("the highlight stays after the release: rows %v, before %v", got, before)
	}
	golden.Check(t, "mouse-select-120x40.txt", s)
}

// TestMouseClickSelectsNothing: a press and release in one place is a
// click as before (it picks the session row) and copies nothing; a press
// on a border starts no selection.
func TestMouseClickSelectsNothing(t *testing.T) {
	h := goldenWorkspace(t)
	ss := h.app.scr.areas().sessions
	h.send(tea.MouseClickMsg{X: ss.x + 4, Y: ss.y + 2, Button: tea.MouseLeft}) // "write the docs"
	h.send(tea.MouseReleaseMsg{X: ss.x + 4, Y: ss.y + 2, Button: tea.MouseLeft})
	if len(h.clip) != 0 {
		t.Fatalf("a click copied %q", h.clip)
	}
	if sel, _ := h.app.sessions.Selected(); h.app.scr.focus != focusSessions || sel.Title != "write the docs" {
		t.Fatalf("a click focuses the sessions and picks the row: focus %d, selected %+v", h.app.scr.focus, sel)
	}
	c := h.app.scr.areas().center
	h.send(tea.MouseClickMsg{X: c.x + 5, Y: c.y + c.h - 1, Button: tea.MouseLeft}) // the centre's bottom border
	h.send(tea.MouseMotionMsg{X: c.x + 9, Y: c.y + 3, Button: tea.MouseLeft})
	h.send(tea.MouseReleaseMsg{X: c.x + 9, Y: c.y + 3, Button: tea.MouseLeft})
	if len(h.clip) != 0 {
		t.Fatalf("a drag from a border copied %q", h.clip)
	}
}
