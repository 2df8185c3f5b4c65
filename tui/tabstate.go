package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/sessions"
)

// Open tabs come back. When the studio closes it writes which session,
// file and Workspaces tabs were open, in order, to
// .state/studio-tabs.json; the next studio opens them again behind the
// first frame (files once read, so after the others), without giving any
// of them the keys. (Terminal tabs come back from the host that kept them
// running: see keptterms.go.) A session deleted or a file removed since
// is skipped.

// tabMemory keeps the open tabs for the next studio and opens the
// previous studio's again, behind the tab in view; it owns the session
// tabs whose sessions the engine has not shown yet (pendingTabs). It
// opens files through the work part and the Workspaces tab through the
// instances part, and sessions, the selection and the focus through its
// root.
type tabMemory struct {
	*studio
	r    tabMemoryRoot
	scr  *screen
	inst *instancesPart
	work *workPart
	// pendingTabs are the previous studio's session tabs whose sessions
	// the engine's snapshot has not shown yet.
	pendingTabs []savedTab
}

// tabMemoryRoot is what the tab memory asks of the studio's root.
type tabMemoryRoot interface {
	openSession(id string, focus bool) tea.Cmd
	selectTab(i int)
	setFocus(f focus)
}

// TabsFile is the open tabs' file in the workspace's state.
const TabsFile = "studio-tabs.json"

// savedTab is one tab of the file.
type savedTab struct {
	Session string `json:"session,omitempty"`
	File    string `json:"file,omitempty"`
	// Workspaces marks the Workspaces tab (the folder and its instances).
	Workspaces bool `json:"workspaces,omitempty"`
}

func tabsPath(workspace string) string {
	return filepath.Join(workspace, sessions.StateDir, TabsFile)
}

// keep writes what the next studio takes back: the activity still queued
// for its file, and the open tabs. Run calls it once the studio has
// closed, and says on the terminal what could not be kept.
func (tm *tabMemory) keep() error {
	err := tm.act.actlog.close()
	if err != nil {
		err = fmt.Errorf("the activity: %w", err)
	}
	if terr := tm.saveTabs(); terr != nil {
		err = errors.Join(err, fmt.Errorf("the open tabs: %w", terr))
	}
	return err
}

// saveTabs writes the open session and file tabs; the studio has closed,
// so this I/O is no frame's. A state folder that is not there (nothing
// was ever run) or not writable keeps nothing.
func (tm *tabMemory) saveTabs() error {
	if tm.opts.Remote != "" {
		return nil // the state folder is on the engine's machine
	}
	var out []savedTab
	for _, t := range tm.tabs.list {
		if s, ok := t.saved(); ok {
			out = append(out, s)
		}
	}
	path := tabsPath(tm.eng.Workspace())
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return sessions.WriteFileAtomic(path, b, 0o600)
}

// tabsLoaded carries the previous studio's tabs.
type tabsLoaded struct{ tabs []savedTab }

// loadTabs reads them, in a command; an unreadable file restores nothing.
func loadTabs(workspace string) tea.Msg {
	b, err := os.ReadFile(tabsPath(workspace))
	if err != nil {
		return tabsLoaded{} // none kept (fs.ErrNotExist), or unreadable: nothing comes back
	}
	var tabs []savedTab
	if json.Unmarshal(b, &tabs) != nil {
		return tabsLoaded{}
	}
	return tabsLoaded{tabs: tabs}
}

// restoreTabs opens the previous studio's tabs that still exist: session
// tabs now (those the engine does not know yet wait for its snapshot),
// files once read.
func (tm *tabMemory) restoreTabs(tabs []savedTab) tea.Cmd {
	var cmds []tea.Cmd
	var later []savedTab
	for _, t := range tabs {
		switch {
		case t.Session != "":
			if _, ok := tm.live.recs[t.Session]; !ok {
				later = append(later, t)
				continue
			}
			if tm.tabs.sessionIndex(t.Session) < 0 {
				cmds = append(cmds, tm.restoreSession(t.Session))
			}
		case t.Workspaces:
			if tm.inst.workspacesTab() == nil {
				cmds = append(cmds, tm.behind(tm.inst.openWorkspaces))
			}
		case t.File != "" && !tm.tabs.hasEditor(t.File):
			ws, p := tm.opts.Files, t.File
			cmds = append(cmds, func() tea.Msg {
				c, err := ws.ReadFile(afiles.Operator, p, afiles.ReadOptions{MaxBytes: maxEditBytes})
				if err != nil {
					return nil // removed since, or no longer text: not restored
				}
				return fileReadMsg{path: c.Path, data: c.Data, restore: true}
			})
		}
	}
	tm.pendingTabs = later
	return tea.Batch(cmds...)
}

// restoreSession opens a session's tab behind the one in view.
func (tm *tabMemory) restoreSession(id string) tea.Cmd {
	return tm.behind(func() tea.Cmd { return tm.r.openSession(id, false) })
}

// behind opens a tab with open and gives the view and the keys back to
// the tab and pane that had them.
func (tm *tabMemory) behind(open func() tea.Cmd) tea.Cmd {
	active, focus := tm.tabs.active, tm.scr.focus
	cmd := open()
	if active < tm.tabs.len()-1 {
		tm.r.selectTab(active)
	}
	tm.r.setFocus(focus)
	return cmd
}
