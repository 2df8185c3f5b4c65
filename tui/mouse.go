package tui

import (
	tea "charm.land/bubbletea/v2"
)

// click focuses the pane under the pointer and passes it the row.
func (a *App) click(m tea.Mouse) tea.Cmd {
	if a.dialog != nil || a.tooSmall() || m.Button != tea.MouseLeft {
		return nil
	}
	ar := a.areas()
	switch {
	case ar.sessions.contains(m.X, m.Y):
		a.setFocus(focusSessions)
		if row := ar.sessions.inner(m.Y); row >= 0 {
			return a.sessionsAction(a.sessions.Click(row))
		}
	case ar.files.contains(m.X, m.Y):
		a.setFocus(focusFiles)
		if row := ar.files.inner(m.Y); row >= 0 {
			return a.files.Click(row)
		}
	case ar.center.contains(m.X, m.Y):
		if m.Y == ar.center.y {
			spans, _, _ := a.tabSpans()
			for _, sp := range spans {
				if m.X >= sp.x0 && m.X < sp.x1 {
					a.selectTab(sp.index)
				}
			}
		}
		if len(a.tabs) > 0 {
			a.setFocus(focusCenter)
			if et, ok := a.currentTab().(*editorTab); ok {
				if row := ar.center.inner(m.Y); row >= 0 {
					et.Click(row, m.X-ar.center.x-1)
				}
			}
		}
	case ar.activity.contains(m.X, m.Y):
		a.setFocus(focusActivity)
		if row := ar.activity.inner(m.Y); row >= 0 {
			if e, again := a.activity.Click(row); again {
				a.showEntry(e) // a click on the selected entry reads it whole
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
	if a.dialog != nil || a.tooSmall() {
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
	ar := a.areas()
	switch {
	case ar.sessions.contains(m.X, m.Y):
		a.sessions.Scroll(n / 3)
	case ar.files.contains(m.X, m.Y):
		return a.files.Scroll(n)
	case ar.center.contains(m.X, m.Y):
		if t := a.currentTab(); t != nil {
			t.Scroll(n)
		}
		if st, ok := a.currentTab().(*sessionTab); ok {
			return a.tabAction(st.Wants())
		}
	case ar.activity.contains(m.X, m.Y):
		a.activity.Scroll(n / 3)
	case ar.actions.contains(m.X, m.Y):
		a.actions.Scroll(n / 3)
	}
	return nil
}
