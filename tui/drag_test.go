package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestDragTheSideColumnsBorders: a press on the border between a side
// column and the centre holds it, motion moves it within the bounds + and
// - keep, and the release saves the widths in the UI state file.
func TestDragTheSideColumnsBorders(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ui.json")
	h := newHarness(t, t.TempDir(), 140, 40)
	h.app.opts.UIStateFile = file
	saved := func() UIState {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var st UIState
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	left := func() int { return h.app.scr.areas().sessions.w }
	right := func() int { return h.app.scr.areas().activity.w }
	l0, r0 := left(), right()
	focus := h.app.scr.focus

	// The left column's right border, dragged 10 columns right.
	h.send(tea.MouseClickMsg{X: l0 - 1, Y: 5, Button: tea.MouseLeft})
	h.send(tea.MouseMotionMsg{X: l0 + 4, Y: 5, Button: tea.MouseLeft})
	h.send(tea.MouseMotionMsg{X: l0 + 9, Y: 6, Button: tea.MouseLeft})
	if left() != l0+10 {
		t.Fatalf("the left column follows the pointer: %d wide, want %d", left(), l0+10)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("the widths are saved on release, not on every motion")
	}
	h.send(tea.MouseReleaseMsg{X: l0 + 9, Y: 6, Button: tea.MouseLeft})
	if st := saved(); st.Left != l0+10 {
		t.Fatalf("released: the UI state keeps %+v, want left %d", st, l0+10)
	}
	if h.app.scr.focus != focus {
		t.Errorf("a drag of a border moves no focus: %d, was %d", h.app.scr.focus, focus)
	}

	// The right column's left border (the centre's right one), dragged
	// far left: the centre keeps its minimum.
	border := h.app.scr.w - r0
	h.send(tea.MouseClickMsg{X: border - 1, Y: 20, Button: tea.MouseLeft})
	h.send(tea.MouseMotionMsg{X: 0, Y: 20, Button: tea.MouseLeft})
	h.send(tea.MouseReleaseMsg{X: 0, Y: 20, Button: tea.MouseLeft})
	if want := h.app.scr.w - (l0 + 10) - minCenter; right() != want || saved().Right != want {
		t.Fatalf("the right column is %d wide (saved %d), want %d: the centre keeps %d columns", right(), saved().Right, want, minCenter)
	}
	// Dragged far right: the column keeps its minimum.
	h.send(tea.MouseClickMsg{X: h.app.scr.w - right(), Y: 20, Button: tea.MouseLeft})
	h.send(tea.MouseMotionMsg{X: h.app.scr.w - 1, Y: 20, Button: tea.MouseLeft})
	h.send(tea.MouseReleaseMsg{X: h.app.scr.w - 1, Y: 20, Button: tea.MouseLeft})
	if right() != minSide || saved().Right != minSide {
		t.Fatalf("the right column is %d wide, want the minimum %d", right(), minSide)
	}

	// Motion with no border held, or over a pane, changes nothing.
	h.send(tea.MouseMotionMsg{X: 60, Y: 10, Button: tea.MouseLeft})
	h.send(tea.MouseClickMsg{X: 60, Y: 10, Button: tea.MouseLeft})
	h.send(tea.MouseMotionMsg{X: 70, Y: 10, Button: tea.MouseLeft})
	h.send(tea.MouseReleaseMsg{X: 70, Y: 10, Button: tea.MouseLeft})
	if left() != l0+10 || right() != minSide {
		t.Fatalf("a drag inside the centre moved a border: %d, %d", left(), right())
	}
}
