package core

import (
	"sort"
	"strings"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/files"
)

// changeMarks is the workspace's set of change marks: each path created,
// changed or deleted since the last turn started, by whom. The engine
// keeps the one set (under its lock) so every studio shows the same marks,
// whenever it opened; it lives in memory, so a host restart empties it.
type changeMarks map[string]engine.ChangeMark

// apply folds a watcher batch into the set; it reports whether the set
// changed. A path created and deleted within one turn just goes; one
// deleted and written again changed; a rename marks the new path new and
// takes the old one's marks (and those below it) away.
func (m changeMarks) apply(batch []files.Change) bool {
	changed := false
	set := func(p string, k engine.MarkKind, by, from string) {
		n := engine.ChangeMark{Path: p, Kind: k, By: by, From: from}
		if m[p] != n {
			m[p], changed = n, true
		}
	}
	for _, c := range batch {
		if c.Kind == files.Notice || c.Path == "" {
			continue
		}
		old, had := m[c.Path]
		switch c.Kind {
		case files.Created:
			if had && old.Kind == engine.MarkDeleted {
				set(c.Path, engine.MarkChanged, c.By, "")
			} else if !had || old.Kind != engine.MarkCreated {
				set(c.Path, engine.MarkCreated, c.By, "")
			}
		case files.Changed:
			if had && old.Kind == engine.MarkCreated {
				set(c.Path, engine.MarkCreated, c.By, old.From)
			} else {
				set(c.Path, engine.MarkChanged, c.By, "")
			}
		case files.Deleted:
			changed = m.drop(c.Path) || changed
			if !had || old.Kind != engine.MarkCreated {
				set(c.Path, engine.MarkDeleted, c.By, "")
			}
		case files.Renamed:
			changed = m.drop(c.OldPath) || changed
			set(c.Path, engine.MarkCreated, c.By, c.OldPath)
		}
	}
	return changed
}

// drop takes the marks of p and of everything below it away.
func (m changeMarks) drop(p string) bool {
	changed := false
	for q := range m {
		if q == p || strings.HasPrefix(q, p+"/") {
			delete(m, q)
			changed = true
		}
	}
	return changed
}

// list is the set sorted by path, as snapshots and events carry it (nil
// when empty).
func (m changeMarks) list() []engine.ChangeMark {
	if len(m) == 0 {
		return nil
	}
	out := make([]engine.ChangeMark, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
