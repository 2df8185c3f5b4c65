package files

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// flattenLocked rebuilds the list of visible rows when something changed:
// the cost is the number of visible rows, never the size of the workspace.
func (t *Tree) flattenLocked() {
	if !t.dirty {
		return
	}
	t.rows = t.rows[:0]
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		for _, c := range n.children {
			if c.hidden && !t.showHidden {
				continue
			}
			t.rows = append(t.rows, rowRef{n: c, depth: depth})
			if c.isDir && c.expanded {
				walk(c, depth+1)
			}
		}
	}
	walk(t.root, 0)
	t.dirty = false
}

// Len returns the number of visible rows.
func (t *Tree) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flattenLocked()
	return len(t.rows)
}

// Rows returns the visible rows from offset, at most limit of them: what a
// viewport of that height shows.
func (t *Tree) Rows(offset, limit int) []Row {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flattenLocked()
	if offset < 0 {
		offset = 0
	}
	if offset >= len(t.rows) || limit <= 0 {
		return nil
	}
	end := min(offset+limit, len(t.rows))
	out := make([]Row, 0, end-offset)
	for _, r := range t.rows[offset:end] {
		out = append(out, t.rowLocked(r))
	}
	return out
}

// Index returns the row number of path, or -1 when it is not visible.
func (t *Tree) Index(path string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flattenLocked()
	path = cleanRel(path)
	for i, r := range t.rows {
		if r.n.path == path {
			return i
		}
	}
	return -1
}

func (t *Tree) rowLocked(r rowRef) Row {
	n := r.n
	row := Row{Depth: r.depth, Name: n.name, Path: n.path, Kind: n.kind, IsDir: n.isDir,
		Expanded: n.expanded, Loaded: n.loaded, Size: n.size, Binary: n.binary,
		Hidden: n.hidden, Broken: n.broken, Mark: t.marks[n.path], Err: n.err, Count: -1}
	if n.isDir {
		row.Size = 0
		row.ChangedBelow = t.markedBelow[n.path] > 0
		switch {
		case n.loaded:
			row.Count = 0
			for _, c := range n.children {
				if !c.hidden || t.showHidden {
					row.Count++
				}
			}
		case t.showHidden:
			row.Count = n.peekAll
		default:
			row.Count = n.peekVis
		}
	}
	return row
}

// ProbeBinary reads the head of the visible files from offset (up to limit
// rows) whose binary state is unknown, so only what is on screen costs I/O.
func (t *Tree) ProbeBinary(offset, limit int) {
	var todo []string
	for _, r := range t.Rows(offset, limit) {
		if !r.IsDir && r.Kind == KindFile && r.Binary == BinaryUnknown && r.Mark.Kind != MarkDeleted {
			todo = append(todo, r.Path)
		}
	}
	results := make(map[string]Binary, len(todo))
	buf := make([]byte, binarySniff)
	for _, p := range todo {
		results[p] = t.probe(p, buf)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for p, b := range results {
		if n := t.lookup(p); n != nil && b != BinaryUnknown {
			n.binary = b
		}
	}
}

func (t *Tree) probe(p string, buf []byte) Binary {
	ws, ok := t.ws.(*Workspace)
	if !ok || ws.enter() != nil {
		return BinaryUnknown
	}
	defer ws.leave()
	fd, _, err := ws.openResolved(p, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return BinaryUnknown
	}
	f := os.NewFile(uintptr(fd), p)
	defer closeFile(f)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return BinaryUnknown
	}
	if IsBinary(buf[:n]) {
		return BinaryYes
	}
	return BinaryNo
}
