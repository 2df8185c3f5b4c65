package files

import (
	"github.com/atelier-studio/atelier/engine"
	afiles "github.com/atelier-studio/atelier/files"
)

// The pane's marks are the host's (the engine keeps one set for the
// workspace, see core/marks.go): the snapshot brings them and each marks
// event replaces them, so every studio, local or attached, opened before
// or after a change, marks the same paths. The pane's own watcher keeps
// the tree's contents live; what it would mark is overridden by the
// host's set at once.

// SetMarks shows the host's change marks (on the workspace's tree; an
// instance's shows none).
func (t *Tree) SetMarks(ms []engine.ChangeMark) {
	t.host = make(map[string]afiles.Mark, len(ms))
	for _, m := range ms {
		t.host[m.Path] = afiles.Mark{Kind: markKind(m.Kind), By: m.By, From: m.From}
	}
	t.showMarks()
}

// showMarks puts the host's marks on the shown tree when it is the
// workspace's.
func (t *Tree) showMarks() {
	if !t.still {
		t.tree.SetMarks(t.host)
		t.clamp()
	}
}

func markKind(k engine.MarkKind) afiles.MarkKind {
	switch k {
	case engine.MarkCreated:
		return afiles.MarkNew
	case engine.MarkChanged:
		return afiles.MarkChanged
	case engine.MarkDeleted:
		return afiles.MarkDeleted
	}
	return afiles.Unmarked
}
