package tui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/tui/diff"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/transcript"
)

// tab is one of the centre's tabs: a session or a diff.
type tab interface {
	Label(width int) string
	SetSize(w, h int)
	View() []string
	Focus()
	Blur()
	TakesText() bool
	Scope() keys.Scope
	Scroll(n int)
}

// sessionTab is a session's tab; its Scope is the history's while the tab
// shows its turn history.
type sessionTab struct{ *transcript.Tab }

// diffTab shows an approval's diff.
type diffTab struct {
	v         *diff.View
	sessionID string
}

// Label implements tab.
func (t *diffTab) Label(width int) string {
	return ansi.Truncate("± "+t.v.Title(), width, "…")
}

// SetSize implements tab.
func (t *diffTab) SetSize(w, h int) { t.v.SetSize(w, h) }

// View implements tab.
func (t *diffTab) View() []string { return t.v.View() }

// Scroll implements tab.
func (t *diffTab) Scroll(n int) { t.v.Scroll(n) }

// HandleKey passes a key to the diff.
func (t *diffTab) HandleKey(msg tea.KeyPressMsg) { t.v.HandleKey(msg) }

// Focus implements tab.
func (t *diffTab) Focus() {}

// Blur implements tab.
func (t *diffTab) Blur() {}

// TakesText implements tab.
func (t *diffTab) TakesText() bool { return false }

// Scope implements tab.
func (t *diffTab) Scope() keys.Scope { return t.v.KeyMap().Scope() }

// newDiffTab returns a diff's tab (of a session's, or "").
func (a *App) newDiffTab(title, text, sessionID string) *diffTab {
	v := diff.New(a.st, title, text)
	v.SetKeyMap(a.km.diff)
	return &diffTab{v: v, sessionID: sessionID}
}

// sourceShower is a tab that draws text it could also show as written:
// in copy mode it shows the source, so the terminal copies what was
// written (an agent's Markdown), not its drawing.
type sourceShower interface{ SetRaw(raw bool) }

// showSource tells every tab that can whether copy mode is on.
func (a *App) showSource() {
	for _, t := range a.tabs {
		if s, ok := t.(sourceShower); ok {
			s.SetRaw(a.copyMode)
		}
	}
}

// tabOf returns the index of a session's tab, or -1.
func (a *App) tabOf(id string) int {
	for i, t := range a.tabs {
		if st, ok := t.(*sessionTab); ok && st.ID() == id {
			return i
		}
	}
	return -1
}

// openSession shows a session's tab, opening it (and loading its
// transcript) when needed.
func (a *App) openSession(id string, focus bool) tea.Cmd {
	rec, ok := a.recs[id]
	if !ok {
		return nil
	}
	var cmd tea.Cmd
	i := a.tabOf(id)
	if i < 0 {
		t := &sessionTab{transcript.NewTab(a.st, rec)}
		t.SetKeyMap(a.km.session, a.km.history)
		t.SetActionKeys(a.km.actions)
		t.SetNow(a.now)
		t.SetWait(a.waitOf(id))
		t.SetPending(a.waitsOf(id))
		t.SetRaw(a.copyMode)
		a.showRun(t)
		a.tabs = append(a.tabs, t)
		i = len(a.tabs) - 1
		cmd = a.openTranscript(id)
	}
	a.selectTab(i)
	if focus {
		a.setFocus(focusCenter)
	}
	return cmd
}

// selectTab makes tab i the visible one and clears its session's mark.
func (a *App) selectTab(i int) {
	if i < 0 || i >= len(a.tabs) {
		return
	}
	if a.active < len(a.tabs) && a.active != i {
		a.tabs[a.active].Blur()
	}
	a.active = i
	if st, ok := a.tabs[i].(*sessionTab); ok {
		a.sessions.SetMark(st.ID(), 0)
		a.sessions.Select(st.ID())
	}
	if a.focus == focusCenter {
		a.tabs[i].Focus()
	}
	a.layout()
}

// bringTab brings tab i into view (< and >) without handing it the keys:
// an editor or terminal that comes into view waits for enter, so the next
// < is the studio's and not typed into a file.
func (a *App) bringTab(i int) {
	a.selectTab(i)
	if t, ok := a.currentTab().(rawTab); ok {
		t.release()
	}
}

// closeTab closes tab i.
func (a *App) closeTab(i int) {
	if i < 0 || i >= len(a.tabs) {
		return
	}
	a.tabs[i].Blur()
	a.tabs = append(a.tabs[:i], a.tabs[i+1:]...)
	if a.active >= len(a.tabs) {
		a.active = max(len(a.tabs)-1, 0)
	}
	if len(a.tabs) == 0 && a.focus == focusCenter {
		a.setFocus(focusSessions)
	}
	a.selectTab(a.active)
	if t, ok := a.currentTab().(rawTab); ok {
		// The tab that comes into view does not take the keys by itself:
		// a key meant for the studio must not land in a shell or a file.
		t.release()
	}
}

// currentTab returns the visible tab, if any.
func (a *App) currentTab() tab {
	if a.active < len(a.tabs) {
		return a.tabs[a.active]
	}
	return nil
}

// visibleSession returns the id of the session whose tab is visible.
func (a *App) visibleSession() string {
	if st, ok := a.currentTab().(*sessionTab); ok {
		return st.ID()
	}
	return ""
}
