package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/tui/diff"
	"github.com/atelier-studio/atelier/tui/transcript"
)

// newDiffTab returns a diff's tab (of a session's, or "").
func newDiffTab(s *studio, title, text, sessionID string) *diffTab {
	v := diff.New(s.st, title, text)
	v.SetKeyMap(s.km.diff)
	return &diffTab{v: v, sessionID: sessionID, id: s.tabs.nextDiffID()}
}

// openSession shows a session's tab, opening it (and loading its
// transcript) when needed.
func (a *App) openSession(id string, focus bool) tea.Cmd {
	rec, ok := a.live.recs[id]
	if !ok {
		return nil
	}
	var cmd tea.Cmd
	i := a.tabs.sessionIndex(id)
	if i < 0 {
		t := &sessionTab{Tab: transcript.NewTab(a.st, rec), r: a.ctl}
		t.SetKeyMap(a.km.session, a.km.history)
		t.SetActionKeys(a.km.actions)
		t.SetNow(a.now)
		t.SetWait(a.live.waitOf(id))
		t.SetPending(a.live.waitsOf(id))
		t.SetRaw(a.scr.copyMode)
		t.SetIsolation(a.inst.isolationOf(rec.Instance))
		t.SetPaths(a.at.list)
		a.set.showRun(t)
		a.tabs.add(t)
		i = a.tabs.len() - 1
		cmd = a.ctl.openTranscript(id)
	}
	a.selectTab(i)
	if focus {
		a.setFocus(focusCenter)
	}
	return cmd
}

// selectTab makes tab i the visible one and clears its session's mark.
func (a *App) selectTab(i int) {
	if i < 0 || i >= a.tabs.len() {
		return
	}
	if a.tabs.active < a.tabs.len() && a.tabs.active != i {
		a.tabs.at(a.tabs.active).Blur()
	}
	a.tabs.active = i
	if st, ok := a.tabs.sessionAt(i); ok {
		a.sessions.SetMark(st.ID(), 0)
		a.sessions.Select(st.ID())
	}
	if a.scr.focus == focusCenter {
		a.tabs.at(i).Focus()
	}
	a.layout()
}

// bringTab brings tab i into view (< and >) without handing it the keys:
// an editor or terminal that comes into view waits for enter, so the next
// < is the studio's and not typed into a file.
func (a *App) bringTab(i int) {
	a.selectTab(i)
	if t, ok := a.tabs.currentRaw(); ok {
		t.release()
	}
}

// closeTab closes tab i.
func (a *App) closeTab(i int) {
	if i < 0 || i >= a.tabs.len() {
		return
	}
	a.tabs.at(i).Blur()
	a.tabs.remove(i)
	if a.tabs.len() == 0 && a.scr.focus == focusCenter {
		a.setFocus(focusSessions)
	}
	a.selectTab(a.tabs.active)
	if t, ok := a.tabs.currentRaw(); ok {
		// The tab that comes into view does not take the keys by itself:
		// a key meant for the studio must not land in a shell or a file.
		t.release()
	}
}
