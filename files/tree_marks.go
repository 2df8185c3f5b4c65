package files

import "strings"

// Apply updates the tree with a watcher batch: entries appear, change,
// disappear or move in the folders already loaded, and every change marks
// its path (also inside folders not loaded yet, so the mark shows once they
// are). A deleted file stays as a marked ghost until ClearMarks; one created
// and deleted within the same turn just goes. Memory only.
func (t *Tree) Apply(changes []Change) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rules := false
	for _, c := range changes {
		if c.Kind == Notice || c.Path == "" {
			continue
		}
		if strings.HasSuffix("/"+c.Path, "/.gitignore") {
			rules = true
		}
		switch c.Kind {
		case Created:
			t.upsert(c.Path, c.IsDir, c.Size)
			if t.marks[c.Path].Kind == MarkDeleted {
				// It was there before this turn: deleted and written
				// again, it changed.
				t.mark(c.Path, Mark{Kind: MarkChanged, By: c.By})
				break
			}
			t.mark(c.Path, Mark{Kind: MarkNew, By: c.By})
		case Changed:
			t.upsert(c.Path, c.IsDir, c.Size)
			if m := t.marks[c.Path]; m.Kind != MarkNew {
				t.mark(c.Path, Mark{Kind: MarkChanged, By: c.By})
			}
		case Deleted:
			t.remove(c.Path, c.By)
		case Renamed:
			n := t.detach(c.OldPath)
			t.unmark(c.OldPath)
			t.attach(c.Path, c.IsDir, c.Size, n)
			t.mark(c.Path, Mark{Kind: MarkNew, By: c.By, From: c.OldPath})
		}
	}
	if rules {
		t.rehideLocked(t.root)
	}
	t.dirty = true
}

// MarkChanged marks path as changed by by (a new file stays new).
func (t *Tree) MarkChanged(path, by string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	path = cleanRel(path)
	if m := t.marks[path]; m.Kind == MarkNew {
		m.By = by
		t.mark(path, m)
		return
	}
	t.mark(path, Mark{Kind: MarkChanged, By: by})
}

// ClearMarks forgets every mark and drops deleted ghosts: a new turn starts.
func (t *Tree) ClearMarks() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p, m := range t.marks {
		if m.Kind == MarkDeleted {
			t.detach(p)
		}
	}
	t.marks = map[string]Mark{}
	t.markedBelow = map[string]int{}
	t.dirty = true
}

// SetMarks replaces every mark with marks (by path): the marks are the
// host's, one set for every studio, and Apply's own are only its guess
// until the host's next set. A deleted path the set no longer marks goes
// from the tree, unless it is on disk again; one it marks deleted shows
// as a ghost in its folder once that is loaded.
func (t *Tree) SetMarks(marks map[string]Mark) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p, m := range t.marks {
		if m.Kind == MarkDeleted && marks[p].Kind != MarkDeleted {
			if n := t.lookup(p); n != nil && n.ghost {
				t.detach(p)
			}
		}
	}
	t.marks = make(map[string]Mark, len(marks))
	t.markedBelow = map[string]int{}
	for p, m := range marks {
		p = cleanRel(p)
		if m.Kind == Unmarked || p == "" {
			continue
		}
		t.mark(p, m)
		if m.Kind != MarkDeleted || t.lookup(p) != nil {
			continue
		}
		if parent := t.lookup(parentOf(p)); parent != nil && parent.loaded {
			name := p[strings.LastIndexByte(p, '/')+1:]
			t.insert(parent, &node{name: name, path: p, kind: KindFile, ghost: true, peekAll: -1, peekVis: -1})
		}
	}
	t.dirty = true
}

// Marks returns a copy of the current marks by path.
func (t *Tree) Marks() map[string]Mark {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]Mark, len(t.marks))
	for p, m := range t.marks {
		out[p] = m
	}
	return out
}

func (t *Tree) mark(p string, m Mark) {
	if _, had := t.marks[p]; !had {
		for d := parentOf(p); ; d = parentOf(d) {
			t.markedBelow[d]++
			if d == "" {
				break
			}
		}
	}
	t.marks[p] = m
}

func (t *Tree) unmark(p string) {
	if _, had := t.marks[p]; !had {
		return
	}
	delete(t.marks, p)
	for d := parentOf(p); ; d = parentOf(d) {
		if t.markedBelow[d]--; t.markedBelow[d] <= 0 {
			delete(t.markedBelow, d)
		}
		if d == "" {
			break
		}
	}
	// Marks inside a path that goes away go with it.
	for q := range t.marks {
		if strings.HasPrefix(q, p+"/") {
			t.unmark(q)
		}
	}
}

// upsert makes sure a loaded folder lists path with this kind and size.
func (t *Tree) upsert(p string, isDir bool, size int64) {
	parent := t.lookup(parentOf(p))
	if parent == nil || !parent.loaded {
		return
	}
	name := p[strings.LastIndexByte(p, '/')+1:]
	if n := parent.index[name]; n != nil {
		if n.isDir != isDir {
			t.detach(p)
		} else {
			n.ghost = false
			if !isDir && n.size != size {
				n.binary = BinaryUnknown
			}
			n.size = size
			return
		}
	}
	kind := KindFile
	if isDir {
		kind = KindDir
	}
	n := &node{name: name, path: p, kind: kind, isDir: isDir, size: size, peekAll: -1, peekVis: -1}
	t.insert(parent, n)
}

func (t *Tree) insert(parent *node, n *node) {
	n.parent = parent
	n.hidden = t.hiddenPath(n.path, n.isDir)
	if parent.index == nil {
		parent.index = map[string]*node{}
	}
	parent.index[n.name] = n
	parent.children = append(parent.children, n)
	sortNodes(parent.children)
}

// remove handles a deletion: a ghost stays marked, unless the path was new
// this turn.
func (t *Tree) remove(p, by string) {
	if t.marks[p].Kind == MarkNew {
		t.detach(p)
		t.unmark(p)
		return
	}
	t.unmark(p) // marks inside go; the path's own is set again below
	if n := t.lookup(p); n != nil {
		n.ghost = true
		n.children, n.index, n.loaded, n.expanded = nil, nil, false, false
		n.peekAll, n.peekVis = -1, -1
	}
	t.mark(p, Mark{Kind: MarkDeleted, By: by})
}

// detach takes path's node out of its folder and returns it (nil if absent).
func (t *Tree) detach(p string) *node {
	parent := t.lookup(parentOf(p))
	if parent == nil || parent.index == nil {
		return nil
	}
	name := p[strings.LastIndexByte(p, '/')+1:]
	n := parent.index[name]
	if n == nil {
		return nil
	}
	delete(parent.index, name)
	for i, c := range parent.children {
		if c == n {
			parent.children = append(parent.children[:i], parent.children[i+1:]...)
			break
		}
	}
	return n
}

// attach puts a moved node (or a fresh one) at its new path.
func (t *Tree) attach(p string, isDir bool, size int64, n *node) {
	parent := t.lookup(parentOf(p))
	if parent == nil || !parent.loaded {
		return
	}
	if n == nil {
		t.upsert(p, isDir, size)
		return
	}
	t.detach(p)
	n.name = p[strings.LastIndexByte(p, '/')+1:]
	n.size = size
	repath(n, p)
	t.insert(parent, n)
}

func repath(n *node, p string) {
	n.path = p
	for _, c := range n.children {
		repath(c, joinRel(p, c.name))
	}
}

// rehideLocked recomputes hidden flags after the rules changed.
func (t *Tree) rehideLocked(n *node) {
	for _, c := range n.children {
		c.hidden = t.hiddenPath(c.path, c.isDir)
		if c.loaded {
			t.rehideLocked(c)
		}
	}
}
