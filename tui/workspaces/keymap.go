package workspaces

import (
	"charm.land/bubbles/v2/key"

	"github.com/atelier-studio/atelier/tui/keys"
)

// KeyMap is the Workspaces tab's keys.
type KeyMap struct {
	Up, Down, Top, Bottom, Diff, Apply, Files, Discard, Branch, Refresh key.Binding
}

// DefaultKeyMap returns the tab's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:      keys.New("previous instance", "up", "k"),
		Down:    keys.New("next instance", "down", "j"),
		Top:     keys.New("the workspace folder (the first row)", "home", "g"),
		Bottom:  keys.New("last instance", "end", "G"),
		Diff:    keys.New("diff: the instance's changes against its base, in a diff tab", "d"),
		Apply:   keys.New("apply: write the instance's changes into the workspace, after a preview you confirm (a conflict offers a 3-way merge)", "a"),
		Files:   keys.New("files: the instance's in the file pane (on the folder: the workspace's again)", "f"),
		Discard: keys.New("discard: remove the instance (asks; asks you to type its name when it has changes never applied)", "x"),
		Branch:  keys.New("branch: a worktree instance's work as a branch of your repository (asks its name)", "b"),
		Refresh: keys.New("refresh: read and measure the instances again", "r"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Workspaces tab", About: "Opened with `W`: the workspace folder and its instances (worktrees and copies " +
		"sessions run on in isolation), each with its sessions, its size on disk and its changes against its base " +
		"(files, +added −removed lines). An instance no live session works on is marked unused. " +
		"Nothing goes back to the workspace until you apply it.",
		Bindings: []key.Binding{k.Up, k.Down, k.Top, k.Bottom, k.Diff, k.Apply, k.Files, k.Discard, k.Branch, k.Refresh},
		Short:    []string{"d", "a", "f", "x", "b"}}
}
