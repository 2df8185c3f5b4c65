package tui

import "testing"

// TestScreenSplitsTheScreen checks the screen part alone: the panes tile
// the body without gaps at full size, a remembered width is kept only
// while it leaves the centre room, narrow and collapsed gives the centre
// the width, and zoomed or single gives the focused pane the body.
func TestScreenSplitsTheScreen(t *testing.T) {
	ui := &UIState{}
	sc := &screen{ui: ui, w: 120, h: 40, focus: focusFiles}
	ar := sc.areas()
	if ar.sessions.w+ar.center.w+ar.activity.w != 120 || ar.sessions.h+ar.files.h != 39 || ar.activity.h+ar.actions.h != 39 {
		t.Fatalf("the panes do not tile 120x39: %+v", ar)
	}
	ui.Left = 36
	if l, _ := sc.sideWidths(); l != 36 {
		t.Errorf("the remembered left width: %d, want 36", l)
	}
	ui.Left = 90 // would leave the centre no room
	if l, r := sc.sideWidths(); 120-l-r < minCenter {
		t.Errorf("the centre is left %d columns", 120-l-r)
	}
	ui.Left = 0

	sc.w, sc.sidesHidden = NarrowWidth-1, true
	if ar := sc.areas(); !sc.collapsed() || ar.center.w != sc.w || ar.sessions.w != 0 {
		t.Errorf("narrow and collapsed, the centre takes the width: %+v", ar)
	}
	sc.w, sc.sidesHidden, sc.zoomed = 120, false, true
	if ar := sc.areas(); ar.files != (rect{0, 0, 120, 39}) || ar.center.w != 0 {
		t.Errorf("zoomed, the focused pane takes the body: %+v", ar)
	}
	sc.zoomed, sc.w, sc.h = false, 60, 20
	if ar := sc.areas(); !sc.single() || ar.files != (rect{0, 1, 60, 18}) {
		t.Errorf("single, the focused pane takes the body under the header: %+v", ar)
	}
	sc.w = MinWidth - 1
	if !sc.tooSmall() || sc.single() {
		t.Errorf("%dx%d is too small and not single", sc.w, sc.h)
	}
}
