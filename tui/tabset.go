package tui

import (
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/editor"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/settings"
	"github.com/atelier-studio/atelier/tui/transcript"
	"github.com/atelier-studio/atelier/tui/workspaces"
)

// tab is one of the centre's tabs. The root hands it the keys and paste
// while it has the focus, and every message that names it (tabMsg); it
// never asks which kind of tab it is: that is this file's job alone.
type tab interface {
	// TabID names the tab among the open ones for as long as it is open
	// ("session:ID", "editor:N", …). (The panes' own ID methods name the
	// session or the editor; TabID is the set's.)
	TabID() string
	Label(width int) string
	SetSize(w, h int)
	View() []string
	Focus()
	Blur()
	TakesText() bool
	Scope() keys.Scope
	Scroll(n int)
	// HandleKey takes a key while the tab has the focus; what the key
	// asks of the studio goes to the tab's root as a typed action.
	HandleKey(msg tea.KeyPressMsg) tea.Cmd
	// Update takes a message that names the tab (tabMsg).
	Update(msg tea.Msg) tea.Cmd
	// Paste takes pasted text while the tab has the focus.
	Paste(msg tea.PasteMsg)
	SetStyles(st themes.Styles)
	// saved says what of the tab the next studio opens again.
	saved() (savedTab, bool)
}

// tabMsg is a message meant for one tab: the root hands it to the tab
// with its id, and drops it when the tab is gone (a highlight of a
// closed editor, the output of a closed terminal).
type tabMsg interface{ TabID() string }

// Each kind of tab reports what its keys ask to its own root: the part
// of the studio that owns what the action touches, which turns it into
// engine calls, dialogs and tabs.
type (
	// sessionRoot takes a session tab's actions and its new height.
	sessionRoot interface {
		tabAction(act transcript.Action) tea.Cmd
		layout()
	}
	// editorRoot takes an editor's actions.
	editorRoot interface {
		editorAction(t *editorTab, act editor.Action) tea.Cmd
	}
	// termRoot closes a terminal's tab and says that its shell ended.
	termRoot interface {
		closeTabID(id string) tea.Cmd
		say(text string, isErr bool)
	}
	// settingsRoot takes the settings tab's actions.
	settingsRoot interface {
		settingsAction(act settings.Action) tea.Cmd
	}
	// workspacesRoot takes the workspaces tab's actions.
	workspacesRoot interface {
		workspacesAction(act workspaces.Action) tea.Cmd
	}
)

// Tab ids. A session's is its session id's; an editor's and a terminal's
// are the ids their packages give them, which their messages carry.
func sessionTabID(id string) string { return "session:" + id }
func editorTabID(id int) string     { return "editor:" + strconv.Itoa(id) }
func terminalTabID(id int) string   { return "terminal:" + strconv.Itoa(id) }

const (
	settingsTabID   = "settings"
	workspacesTabID = "workspaces"
)

// tabSet holds the centre's tabs, their order and the one in view. It is
// the one place that knows the concrete kinds of tab: the rest of the
// studio finds a session's tab, a file's editor or a terminal through its
// typed lookups, and handles a tab through the tab interface.
type tabSet struct {
	list   []tab
	active int
	diffs  int // the diff tabs opened, for their ids
}

// len returns how many tabs are open.
func (s *tabSet) len() int { return len(s.list) }

// at returns tab i.
func (s *tabSet) at(i int) tab { return s.list[i] }

// current returns the tab in view, or nil.
func (s *tabSet) current() tab {
	if s.active < len(s.list) {
		return s.list[s.active]
	}
	return nil
}

// index returns the index of the tab with an id, or -1.
func (s *tabSet) index(id string) int {
	for i, t := range s.list {
		if t.TabID() == id {
			return i
		}
	}
	return -1
}

// get returns the tab with an id, or nil when it is gone.
func (s *tabSet) get(id string) tab {
	if i := s.index(id); i >= 0 {
		return s.list[i]
	}
	return nil
}

// nextDiffID names a new diff tab.
func (s *tabSet) nextDiffID() string {
	s.diffs++
	return "diff:" + strconv.Itoa(s.diffs)
}

// add appends a tab (not brought into view).
func (s *tabSet) add(t tab) { s.list = append(s.list, t) }

// remove takes tab i out; the one in view stays in range.
func (s *tabSet) remove(i int) {
	s.list = append(s.list[:i], s.list[i+1:]...)
	if s.active >= len(s.list) {
		s.active = max(len(s.list)-1, 0)
	}
}

// sessionIndex returns the index of a session's tab, or -1.
func (s *tabSet) sessionIndex(id string) int { return s.index(sessionTabID(id)) }

// session returns a session's tab, or nil.
func (s *tabSet) session(id string) *sessionTab {
	t, _ := s.get(sessionTabID(id)).(*sessionTab)
	return t
}

// sessions returns the session tabs, in order.
func (s *tabSet) sessions() []*sessionTab { return ofKind[*sessionTab](s) }

// sessionAt returns tab i when it is a session's.
func (s *tabSet) sessionAt(i int) (*sessionTab, bool) {
	if i < 0 || i >= len(s.list) {
		return nil, false
	}
	t, ok := s.list[i].(*sessionTab)
	return t, ok
}

// visibleSession returns the id of the session whose tab is in view, or "".
func (s *tabSet) visibleSession() string {
	if t, ok := s.current().(*sessionTab); ok {
		return t.ID()
	}
	return ""
}

// editor returns an editor's tab by editor id and its index, or nil, -1.
func (s *tabSet) editor(id int) (*editorTab, int) {
	i := s.index(editorTabID(id))
	if i < 0 {
		return nil, -1
	}
	return s.list[i].(*editorTab), i
}

// editorAt returns the editor of a path and its index, or nil, -1.
func (s *tabSet) editorAt(path string) (*editorTab, int) {
	for i, t := range s.list {
		if et, ok := t.(*editorTab); ok && et.Path() == path {
			return et, i
		}
	}
	return nil, -1
}

// editors returns the editor tabs, in order.
func (s *tabSet) editors() []*editorTab { return ofKind[*editorTab](s) }

// currentEditor returns the tab in view when it is an editor.
func (s *tabSet) currentEditor() (*editorTab, bool) {
	t, ok := s.current().(*editorTab)
	return t, ok
}

// terminalAt returns tab i when it is a terminal.
func (s *tabSet) terminalAt(i int) (*termTab, bool) {
	t, ok := s.list[i].(*termTab)
	return t, ok
}

// currentTerminal returns the visible tab when it is a terminal.
func (s *tabSet) currentTerminal() (*termTab, bool) {
	t, ok := s.current().(*termTab)
	return t, ok
}

// terminals returns the terminal tabs, in order.
func (s *tabSet) terminals() []*termTab { return ofKind[*termTab](s) }

// settings returns the settings tab and its index, or nil, -1.
func (s *tabSet) settings() (*settingsTab, int) {
	i := s.index(settingsTabID)
	if i < 0 {
		return nil, -1
	}
	return s.list[i].(*settingsTab), i
}

// workspaces returns the Workspaces tab and its index, or nil, -1.
func (s *tabSet) workspaces() (*workspacesTab, int) {
	i := s.index(workspacesTabID)
	if i < 0 {
		return nil, -1
	}
	return s.list[i].(*workspacesTab), i
}

// currentWorkspaces returns the tab in view when it is the Workspaces tab.
func (s *tabSet) currentWorkspaces() (*workspacesTab, bool) {
	t, ok := s.current().(*workspacesTab)
	return t, ok
}

// currentSession returns the tab in view when it is a session's.
func (s *tabSet) currentSession() (*sessionTab, bool) {
	t, ok := s.current().(*sessionTab)
	return t, ok
}

// currentRaw returns the tab in view when it may take every key.
func (s *tabSet) currentRaw() (rawTab, bool) {
	t, ok := s.current().(rawTab)
	return t, ok
}

// dirtyEditorAt returns tab i when it is an editor with unsaved changes.
func (s *tabSet) dirtyEditorAt(i int) (*editorTab, bool) {
	t, ok := s.list[i].(*editorTab)
	return t, ok && t.Dirty()
}

// showSource tells every tab that draws text it could also show as
// written (a session's Markdown) whether copy mode is on.
func (s *tabSet) showSource(raw bool) {
	for _, t := range s.sessions() {
		t.SetRaw(raw)
	}
}

// ofKind returns the tabs of one kind, in order.
func ofKind[T tab](s *tabSet) []T {
	var out []T
	for _, t := range s.list {
		if k, ok := t.(T); ok {
			out = append(out, k)
		}
	}
	return out
}

// rawKind names what has the keys in the status line's badge.
func rawKind(t rawTab) string {
	if _, ok := t.(*editorTab); ok {
		return "editor"
	}
	return "terminal"
}

// hasEditor reports whether a path's editor is open.
func (s *tabSet) hasEditor(path string) bool {
	_, i := s.editorAt(path)
	return i >= 0
}
