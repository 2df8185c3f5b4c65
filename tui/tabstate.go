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
func (a *App) keep() error {
	err := a.act.actlog.close()
	if err != nil {
		err = fmt.Errorf("the activity: %w", err)
	}
	if terr := a.saveTabs(); terr != nil {
		err = errors.Join(err, fmt.Errorf("the open tabs: %w", terr))
	}
	return err
}

// saveTabs writes the open session and file tabs; the studio has closed,
// so this I/O is no frame's. A state folder that is not there (nothing
// was ever run) or not writable keeps nothing.
func (a *App) saveTabs() error {
	if a.opts.Remote != "" {
		return nil // the state folder is on the engine's machine
	}
	var out []savedTab
	for _, t := range a.tabs.list {
		if s, ok := t.saved(); ok {
			out = append(out, s)
		}
	}
	path := tabsPath(a.eng.Workspace())
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
func (a *App) restoreTabs(tabs []savedTab) tea.Cmd {
	var cmds []tea.Cmd
	var later []savedTab
	for _, t := range tabs {
		switch {
		case t.Session != "":
			if _, ok := a.live.recs[t.Session]; !ok {
				later = append(later, t)
				continue
			}
			if a.tabs.sessionIndex(t.Session) < 0 {
				cmds = append(cmds, a.restoreSession(t.Session))
			}
		case t.Workspaces:
			if a.inst.workspacesTab() == nil {
				cmds = append(cmds, a.behind(a.inst.openWorkspaces))
			}
		case t.File != "" && !a.tabs.hasEditor(t.File):
			ws, p := a.opts.Files, t.File
			cmds = append(cmds, func() tea.Msg {
				c, err := ws.ReadFile(afiles.Operator, p, afiles.ReadOptions{MaxBytes: maxEditBytes})
				if err != nil {
					return nil // removed since, or no longer text: not restored
				}
				return fileReadMsg{path: c.Path, data: c.Data, restore: true}
			})
		}
	}
	a.pendingTabs = later
	return tea.Batch(cmds...)
}

// restoreSession opens a session's tab behind the one in view.
func (a *App) restoreSession(id string) tea.Cmd {
	return a.behind(func() tea.Cmd { return a.openSession(id, false) })
}

// behind opens a tab with open and gives the view and the keys back to
// the tab and pane that had them.
func (a *App) behind(open func() tea.Cmd) tea.Cmd {
	active, focus := a.tabs.active, a.scr.focus
	cmd := open()
	if active < a.tabs.len()-1 {
		a.selectTab(active)
	}
	a.setFocus(focus)
	return cmd
}
