package files

import (
	"errors"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

// MarkKind says how a file changed since the last turn.
type MarkKind uint8

// The marks a file can carry until ClearMarks.
const (
	Unmarked MarkKind = iota
	MarkNew
	MarkChanged
	MarkDeleted
)

// Mark is a file's change since the last turn and who made it.
type Mark struct {
	Kind MarkKind
	By   string
	From string // the old path of a renamed file
}

// Binary says what a file's head looked like, once probed.
type Binary uint8

// The binary states.
const (
	BinaryUnknown Binary = iota
	BinaryNo
	BinaryYes
)

// Row is one visible line of the tree, what a UI draws.
type Row struct {
	Depth    int
	Name     string
	Path     string
	Kind     Kind
	IsDir    bool // a folder, or a symlink to one inside the workspace
	Expanded bool
	Loaded   bool
	// Count is the number of entries a folder shows when expanded (hidden
	// ones included only while they are shown); -1 when not known.
	Count        int
	Size         int64
	Binary       Binary
	Hidden       bool // ignored or one of DefaultHidden: dim it
	Broken       bool // a symlink that is dangling, loops or leaves
	Mark         Mark
	ChangedBelow bool // a folder with marked paths inside
	Err          error
}

// Tree is the workspace tree the studio shows: folders load on demand, the
// visible rows come out flattened for a viewport, watcher batches apply
// incrementally and files carry marks until the next turn. It is a plain
// data model, safe for concurrent use: Load and ProbeBinary do I/O (call them
// off the UI goroutine); every other method is memory only.
type Tree struct {
	ws TreeSource
	ig *Ignore

	mu          sync.Mutex
	root        *node
	showHidden  bool
	marks       map[string]Mark
	markedBelow map[string]int
	rows        []rowRef
	dirty       bool
}

type node struct {
	name     string
	path     string
	kind     Kind
	isDir    bool
	size     int64
	binary   Binary
	hidden   bool
	broken   bool
	ghost    bool // a deleted path kept while it is marked deleted
	expanded bool
	loaded   bool
	peekAll  int // entries counted without loading (-1 unknown)
	peekVis  int
	err      error
	parent   *node
	children []*node
	index    map[string]*node
}

type rowRef struct {
	n     *node
	depth int
}

// TreeSource is what a Tree reads the workspace through: a *Workspace on
// this machine, or a workspace another machine's engine serves (the
// studio attached to it reads the folders through its API).
type TreeSource interface {
	// ReadDir lists a folder's entries.
	ReadDir(dir string) ([]Entry, error)
	// List lists a folder's names and kinds, to count what it holds.
	List(dir string) ([]fs.DirEntry, error)
	// FileReader reads the .gitignore files.
	FileReader
}

// NewTree returns a tree of ws with nothing loaded; call Load(""). ig holds
// the .gitignore rules; share the watcher's so its reloads show here (nil
// makes a new one, loaded folder by folder). Only a *Workspace has its
// files' heads probed for binary content (ProbeBinary): another source's
// files stay BinaryUnknown rather than cost a request each.
func NewTree(ws TreeSource, ig *Ignore) *Tree {
	if ig == nil {
		ig = NewIgnore()
	}
	root := &node{isDir: true, kind: KindDir, expanded: true, peekAll: -1, peekVis: -1}
	return &Tree{ws: ws, ig: ig, root: root, marks: map[string]Mark{}, markedBelow: map[string]int{}, dirty: true}
}

// Load reads folder dir's entries (and counts what each sub-folder holds)
// and puts them in the tree, keeping the state of entries already there.
func (t *Tree) Load(dir string) error {
	dir = cleanRel(dir)
	if err := t.ig.Load(t.ws, dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	ents, err := t.ws.ReadDir(dir)
	if err != nil {
		t.mu.Lock()
		if n := t.lookup(dir); n != nil {
			n.err = err
		}
		t.dirty = true
		t.mu.Unlock()
		return err
	}
	fresh := make([]*node, 0, len(ents))
	for _, e := range ents {
		if isTemp(e.Name) {
			continue
		}
		p := joinRel(dir, e.Name)
		n := &node{name: e.Name, path: p, kind: e.Kind, isDir: e.IsDir(), size: e.Size, broken: e.Broken,
			peekAll: -1, peekVis: -1}
		if n.isDir {
			t.peek(n)
		}
		fresh = append(fresh, n)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	parent := t.lookup(dir)
	if parent == nil || !parent.isDir {
		return nil // the folder vanished from the tree meanwhile
	}
	parent.err = nil
	t.setChildren(parent, fresh)
	return nil
}

// peek counts a folder's entries without loading it.
func (t *Tree) peek(n *node) {
	ents, err := t.ws.List(n.path)
	if err != nil {
		return
	}
	n.peekAll, n.peekVis = 0, 0
	for _, e := range ents {
		if isTemp(e.Name()) {
			continue
		}
		n.peekAll++
		if !t.hiddenPath(joinRel(n.path, e.Name()), e.IsDir()) {
			n.peekVis++
		}
	}
}

// setChildren replaces a folder's children, keeping existing nodes (their
// expansion, loaded sub-trees, probes) and deleted ghosts still marked.
func (t *Tree) setChildren(parent *node, fresh []*node) {
	old := parent.index
	parent.index = make(map[string]*node, len(fresh))
	parent.children = parent.children[:0]
	for _, n := range fresh {
		if o := old[n.name]; o != nil && o.isDir == n.isDir {
			o.size, o.kind, o.broken, o.ghost = n.size, n.kind, n.broken, false
			o.peekAll, o.peekVis = n.peekAll, n.peekVis
			if o.size != n.size {
				o.binary = BinaryUnknown
			}
			n = o
		}
		n.parent = parent
		n.hidden = t.hiddenPath(n.path, n.isDir)
		parent.index[n.name] = n
		parent.children = append(parent.children, n)
	}
	for name, o := range old {
		if _, ok := parent.index[name]; !ok && t.marks[o.path].Kind == MarkDeleted {
			parent.index[name] = o
			parent.children = append(parent.children, o)
		}
	}
	// A file deleted while its folder was not loaded (collapsed) shows as a
	// ghost once the folder is.
	for p, m := range t.marks {
		if m.Kind != MarkDeleted || parentOf(p) != parent.path {
			continue
		}
		name := p[strings.LastIndexByte(p, '/')+1:]
		if _, ok := parent.index[name]; !ok {
			g := &node{name: name, path: p, kind: KindFile, parent: parent, ghost: true, peekAll: -1, peekVis: -1}
			parent.index[name] = g
			parent.children = append(parent.children, g)
		}
	}
	parent.loaded = true
	sortNodes(parent.children)
	t.dirty = true
}

func (t *Tree) hiddenPath(p string, isDir bool) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	return isDefaultHidden(base) || t.ig.MatchEntry(p, isDir)
}

// sortNodes puts folders first, then names in case-insensitive order.
func sortNodes(ns []*node) {
	sort.Slice(ns, func(i, j int) bool {
		a, b := ns[i], ns[j]
		if a.isDir != b.isDir {
			return a.isDir
		}
		la, lb := strings.ToLower(a.name), strings.ToLower(b.name)
		if la != lb {
			return la < lb
		}
		return a.name < b.name
	})
}

// lookup finds a loaded node by path ("" is the root).
func (t *Tree) lookup(p string) *node {
	n := t.root
	if p == "" {
		return n
	}
	for _, c := range strings.Split(p, "/") {
		if n.index == nil {
			return nil
		}
		if n = n.index[c]; n == nil {
			return nil
		}
	}
	return n
}

// Expand opens folder dir, loading it first if needed.
func (t *Tree) Expand(dir string) error {
	dir = cleanRel(dir)
	t.mu.Lock()
	n := t.lookup(dir)
	if n == nil || !n.isDir {
		t.mu.Unlock()
		return &PathError{Op: "expand", Path: dir, Err: fs.ErrNotExist}
	}
	loaded := n.loaded
	t.mu.Unlock()
	if !loaded {
		if err := t.Load(dir); err != nil {
			return err
		}
	}
	t.mu.Lock()
	if n := t.lookup(dir); n != nil {
		n.expanded = true
	}
	t.dirty = true
	t.mu.Unlock()
	return nil
}

// Collapse closes folder dir; its loaded contents stay in memory.
func (t *Tree) Collapse(dir string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := t.lookup(cleanRel(dir)); n != nil && n != t.root {
		n.expanded = false
		t.dirty = true
	}
}

// Toggle expands a collapsed folder and collapses an expanded one.
func (t *Tree) Toggle(dir string) error {
	t.mu.Lock()
	n := t.lookup(cleanRel(dir))
	open := n != nil && n.expanded
	t.mu.Unlock()
	if open {
		t.Collapse(dir)
		return nil
	}
	return t.Expand(dir)
}

// SetShowHidden shows or hides ignored and DefaultHidden entries.
func (t *Tree) SetShowHidden(show bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.showHidden != show {
		t.showHidden = show
		t.dirty = true
	}
}

// ShowHidden reports whether hidden entries are shown.
func (t *Tree) ShowHidden() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.showHidden
}
