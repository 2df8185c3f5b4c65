package files

import (
	"errors"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"
)

// snapshot is what the watcher knows of the tree: folder -> entries.
type snapshot = map[string]map[string]snapEntry

// walk reads folder rel and everything under it that is not hidden. With
// watch, each folder is watched before it is read, so nothing created
// meanwhile is missed; with stat, files are statted (polling and rescans
// need sizes and times, the initial walk does not).
func (w *Watcher) walk(rel string, watch, stat bool) (snapshot, error) {
	out := snapshot{}
	var visit func(dir string) error
	visit = func(dir string) error {
		if watch {
			if err := w.addWatch(dir); err != nil {
				return err
			}
		}
		f, err := os.Open(w.abs(dir))
		if err != nil {
			return nil // vanished or unreadable: nothing to watch there
		}
		ents, err := f.ReadDir(-1)
		closeFile(f)
		if err != nil {
			return nil
		}
		for _, e := range ents {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				w.loadIgnore(dir)
				break
			}
		}
		m := make(map[string]snapEntry, len(ents))
		for _, e := range ents {
			child := joinRel(dir, e.Name())
			isDir := e.IsDir()
			if w.hidden(child, isDir) {
				continue
			}
			se := snapEntry{dir: isDir}
			if stat && !isDir {
				info, err := e.Info()
				if err != nil {
					continue
				}
				se.known, se.size, se.mtime = true, info.Size(), info.ModTime().UnixNano()
			}
			m[e.Name()] = se
			if isDir {
				if err := visit(child); err != nil {
					return err
				}
			}
		}
		out[dir] = m
		return nil
	}
	return out, visit(rel)
}

// rescan walks the whole workspace again and reports what differs from the
// snapshot: after an overflow (with a notice), when polling, and silently
// after a .gitignore change (why == "-": watches and snapshot only).
func (w *Watcher) rescan(why string) {
	cur, err := w.walk("", !w.polling, true)
	if errors.Is(err, errBudget) {
		w.fallBack()
		cur, _ = w.walk("", false, true)
	}
	if !w.polling {
		for d := range w.watches {
			if _, ok := cur[d]; !ok {
				w.dropWatch(d)
			}
		}
	}
	changes := w.diff(w.snap, cur)
	w.snap = cur
	if why == "-" {
		return
	}
	if why != "" {
		w.notice("%s", why)
	}
	w.ready = append(w.ready, changes...)
}

// diff compares two snapshots. A file whose old entry was never statted
// counts as changed if it was modified after the watcher started (its
// events were lost). Entries of a vanished folder fold into the folder's own
// deletion.
func (w *Watcher) diff(old, cur snapshot) []Change {
	now := time.Now()
	since := w.started.Add(-time.Second).UnixNano()
	var out []Change
	for dir, ents := range cur {
		prev := old[dir]
		for name, e := range ents {
			p := joinRel(dir, name)
			o, had := prev[name]
			switch {
			case !had:
				out = append(out, w.change(Created, p, e, now))
			case !e.dir && !o.dir && (o.known && (o.size != e.size || o.mtime != e.mtime) || !o.known && e.mtime >= since):
				out = append(out, w.change(Changed, p, e, now))
			case e.dir != o.dir:
				out = append(out, w.change(Changed, p, e, now))
			}
		}
	}
	for dir, ents := range old {
		now, ok := cur[dir]
		if !ok {
			continue // the folder itself went: reported from its parent
		}
		for name, e := range ents {
			if _, ok := now[name]; !ok {
				out = append(out, w.change(Deleted, joinRel(dir, name), snapEntry{dir: e.dir}, time.Time{}))
			}
		}
	}
	sortChanges(out)
	return out
}

func (w *Watcher) change(kind ChangeKind, p string, e snapEntry, now time.Time) Change {
	at := now
	if e.known {
		at = time.Unix(0, e.mtime)
	}
	if at.IsZero() {
		at = time.Now()
	}
	c := Change{Kind: kind, Path: p, IsDir: e.dir, Time: time.Now(), By: w.attr.Lookup(p, at)}
	if !e.dir && kind != Deleted {
		c.Size = e.size
	}
	return c
}

func sortChanges(cs []Change) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Path < cs[j].Path })
}

func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "no space left on device")
}
