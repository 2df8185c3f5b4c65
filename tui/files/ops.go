package files

import (
	"path"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// OpKind names a file operation the pane asks the root for.
type OpKind int

// The file operations of the pane.
const (
	OpNewFile OpKind = iota + 1
	OpNewFolder
	OpRename
	OpDelete
	OpUpload
	OpDownload
)

// Op asks the root for a file operation on the selection. The root asks
// what it needs (a name, a host path, a confirmation) in a dialog and runs
// the operation in a command, as the operator.
type Op struct {
	Kind OpKind
	// Path is the selected entry ("" when nothing is selected).
	Path  string
	IsDir bool
	// Dir is the folder new entries and uploads go into: the selected
	// folder, the selected file's folder, or "" for the workspace's root.
	Dir string
}

// opKey turns a file-operation key into its Op; ok is false for any other
// key. Renaming, deleting and downloading need a selection.
func (t *Tree) opKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := t.keys
	var kind OpKind
	switch {
	case key.Matches(msg, k.NewFile):
		kind = OpNewFile
	case key.Matches(msg, k.NewFolder):
		kind = OpNewFolder
	case key.Matches(msg, k.Rename):
		kind = OpRename
	case key.Matches(msg, k.Delete):
		kind = OpDelete
	case key.Matches(msg, k.Upload):
		kind = OpUpload
	case key.Matches(msg, k.Download):
		kind = OpDownload
	default:
		return nil, false
	}
	op, ok := t.op(kind)
	if !ok {
		return nil, true
	}
	return func() tea.Msg { return op }, true
}

// op describes an operation on the selection.
func (t *Tree) op(kind OpKind) (Op, bool) {
	r, selected := t.selected()
	if !selected || !t.loaded {
		switch kind {
		case OpNewFile, OpNewFolder, OpUpload:
			return Op{Kind: kind}, true
		}
		return Op{}, false
	}
	o := Op{Kind: kind, Path: r.Path, IsDir: r.IsDir, Dir: r.Path}
	if !r.IsDir {
		o.Dir = parentDir(r.Path)
	}
	return o, true
}

// parentDir is a workspace path's folder, "" for the root.
func parentDir(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}
