package files

import (
	"os"
	"sort"
	"strings"
	"time"
)

// flush turns the pending paths into one batch: each path's net effect
// between its first event and now, read from the disk (created then deleted
// within the window is nothing; a rename pairs its two ends), and updates
// the snapshot.
func (w *Watcher) flush() {
	if len(w.pending) == 0 {
		return
	}
	now := time.Now()
	paths := make([]string, 0, len(w.pending))
	for p := range w.pending {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	type state struct {
		exists bool
		entry  snapEntry
	}
	states := make(map[string]state, len(paths))
	for _, p := range paths {
		fi, err := os.Lstat(w.abs(p))
		if err != nil {
			states[p] = state{}
			continue
		}
		e := snapEntry{dir: fi.IsDir(), known: !fi.IsDir(), mtime: fi.ModTime().UnixNano()}
		if !e.dir {
			e.size = fi.Size()
		}
		states[p] = state{exists: true, entry: e}
	}
	consumed := map[string]bool{}
	var deletedDirs []string
	var batch []Change
	for _, p := range paths {
		pe, st := w.pending[p], states[p]
		c := Change{Path: p, By: pe.by, Time: now, IsDir: st.entry.dir, Size: st.entry.size}
		switch {
		case st.exists && pe.from != "" && !states[pe.from].exists && w.pending[pe.from] != nil && w.pending[pe.from].existed:
			c.Kind, c.OldPath = Renamed, pe.from
			consumed[pe.from] = true
		case st.exists && !pe.existed:
			c.Kind = Created
		case !st.exists && pe.existed:
			c.Kind, c.IsDir = Deleted, pe.wasDir
			if pe.wasDir {
				deletedDirs = append(deletedDirs, p)
			}
		case st.exists && pe.existed && (!st.entry.dir || !pe.wasDir):
			c.Kind = Changed // a folder that stays a folder did not change
		}
		w.setEntry(p, st.exists, st.entry)
		if c.Kind != "" {
			batch = append(batch, c)
		}
	}
	keep := batch[:0]
	for _, c := range batch {
		if c.Kind == Deleted && (consumed[c.Path] || under(c.Path, deletedDirs)) {
			continue
		}
		keep = append(keep, c)
	}
	w.pending = map[string]*pend{}
	w.first, w.last = time.Time{}, time.Time{}
	w.ready = append(w.ready, keep...)
	if w.regather {
		w.regather = false
		w.rescan("-")
	}
}

// setEntry records a path's state after a flush in its folder's entries.
func (w *Watcher) setEntry(p string, exists bool, e snapEntry) {
	dir, name := parentOf(p), p[strings.LastIndexByte(p, '/')+1:]
	ents, ok := w.snap[dir]
	if !ok {
		return
	}
	if exists {
		ents[name] = e
		return
	}
	delete(ents, name)
}

// under reports whether p lies strictly inside one of the folders.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
