package tui

import (
	tea "charm.land/bubbletea/v2"
)

// click focuses the pane under the pointer and passes it the row; a press
// on a border between a side column and the centre holds it to drag, a
// press inside a pane may start a selection (selection.go).
func (a *App) click(m tea.Mouse) tea.Cmd {
	// A drag whose release never came (the button let go outside the
	// window) ends at the next press.
	return tea.Batch(a.dragEnd(), a.press(m))
}

// motion follows a held button: a border being dragged, or a selection.
func (a *App) motion(m tea.Mouse) {
	if a.scr.dragTo(m.X) {
		a.layout()
		return
	}
	a.scr.selectTo(m.X, m.Y)
}

// release ends what the press held.
func (a *App) release() tea.Cmd {
	return tea.Batch(a.dragEnd(), a.scr.selectEnd(a.render, &a.status))
}

func (a *App) press(m tea.Mouse) tea.Cmd {
	if a.dlg.dialog != nil || a.scr.tooSmall() || m.Button != tea.MouseLeft {
		return nil
	}
	if d := a.scr.dividerAt(m.X, m.Y); d != noDivider {
		a.scr.drag = drag{on: d, from: a.ui}
		return nil
	}
	a.scr.selectFrom(m.X, m.Y)
	ar := a.scr.areas()
	switch {
	case ar.sessions.contains(m.X, m.Y):
		a.setFocus(focusSessions)
		if row := ar.sessions.inner(m.Y); row >= 0 {
			return a.ctl.sessionsAction(a.sessions.Click(row))
		}
	case ar.files.contains(m.X, m.Y):
		a.setFocus(focusFiles)
		if row := ar.files.inner(m.Y); row >= 0 {
			return a.files.Click(row)
		}
	case ar.center.contains(m.X, m.Y):
		if m.Y == ar.center.y {
			spans, _, _ := a.view.tabSpans()
			for _, sp := range spans {
				if m.X >= sp.x0 && m.X < sp.x1 {
					a.selectTab(sp.index)
				}
			}
		}
		if a.tabs.len() > 0 {
			a.setFocus(focusCenter)
			if et, ok := a.tabs.currentEditor(); ok {
				if row := ar.center.inner(m.Y); row >= 0 {
					et.Click(row, m.X-ar.center.x-1)
				}
			}
			if wt, ok := a.tabs.currentWorkspaces(); ok {
				if row := ar.center.inner(m.Y); row >= 0 {
					wt.Click(row)
				}
			}
		}
	case ar.activity.contains(m.X, m.Y):
		a.setFocus(focusActivity)
		if row := ar.activity.inner(m.Y); row >= 0 {
			if e, again := a.activity.Click(row); again {
				a.view.showEntry(e) // a click on the selected entry reads it whole
			}
		}
	case ar.actions.contains(m.X, m.Y):
		a.setFocus(focusActions)
		if row := ar.actions.inner(m.Y); row >= 0 {
			a.actions.Click(row)
		}
	}
	return nil
}

// wheel scrolls the pane under the pointer; the file tree's scroll may
// ask for the new selection's blame.
func (a *App) wheel(m tea.Mouse) tea.Cmd {
	if a.dlg.dialog != nil || a.scr.tooSmall() {
		return nil
	}
	n := 0
	switch m.Button {
	case tea.MouseWheelUp:
		n = -3
	case tea.MouseWheelDown:
		n = 3
	default:
		return nil
	}
	ar := a.scr.areas()
	switch {
	case ar.sessions.contains(m.X, m.Y):
		a.sessions.Scroll(n / 3)
	case ar.files.contains(m.X, m.Y):
		return a.files.Scroll(n)
	case ar.center.contains(m.X, m.Y):
		if t := a.tabs.current(); t != nil {
			t.Scroll(n)
		}
		if st, ok := a.tabs.currentSession(); ok {
			return a.ctl.tabAction(st.Wants())
		}
	case ar.activity.contains(m.X, m.Y):
		a.activity.Scroll(n / 3)
	case ar.actions.contains(m.X, m.Y):
		a.actions.Scroll(n / 3)
	}
	return nil
}

// divider names a border between a side column and the centre.
type divider int

const (
	noDivider    divider = iota
	leftDivider          // the left column's right border, the centre's left one
	rightDivider         // the centre's right border, the right column's left one
)

// drag is a divider held by the mouse, and the UI state before it, to
// tell whether a release changed anything.
type drag struct {
	on   divider
	from UIState
}

// dividerAt returns the divider under the pointer: either of the two
// border columns where a side column meets the centre, when both show.
func (sc *screen) dividerAt(x, y int) divider {
	if sc.tooSmall() || sc.onePane() || sc.collapsed() || y < 0 || y >= sc.h-1 {
		return noDivider
	}
	left, right := sc.sideWidths()
	switch x {
	case left - 1, left:
		return leftDivider
	case sc.w - right - 1, sc.w - right:
		if right > 0 { // stacked, there is no right column
			return rightDivider
		}
	}
	return noDivider
}

// dragTo moves the held divider to the pointer's column x, within the
// bounds + and - keep (minSide, minCenter), and says whether one is held.
// The width is saved on release.
func (sc *screen) dragTo(x int) bool {
	left, right := sc.sideWidths()
	switch sc.drag.on {
	case leftDivider:
		// The left column's right border follows the pointer.
		sc.ui.Left = clamp(x+1, minSide, sc.w-right-minCenter)
	case rightDivider:
		// The right column's left border follows the pointer.
		sc.ui.Right = clamp(sc.w-x, minSide, sc.w-left-minCenter)
	default:
		return false
	}
	return true
}

// dragEnd lets go of the divider and remembers the widths, as + and - do.
func (a *App) dragEnd() tea.Cmd {
	held := a.scr.drag
	a.scr.drag = drag{}
	if held.on == noDivider || a.ui == held.from {
		return nil
	}
	return a.ui.save(a.opts.UIStateFile)
}
