package files

import (
	"os"
	"path"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Entry is one listed name.
type Entry struct {
	Name string
	Dir  bool
}

// Lister lists a workspace-relative directory ("" is the root).
type Lister func(dir string) ([]Entry, error)

// hidden are the names never shown: the engine's state, version control
// internals and dependency caches.
var hidden = map[string]bool{".git": true, ".state": true, "node_modules": true}

// DirLister lists directories of root straight from the disk, hiding the
// usual noise. It is the Lister until the workspace's own tree lands.
func DirLister(root string) Lister {
	return func(dir string) ([]Entry, error) {
		des, err := os.ReadDir(path.Join(root, dir))
		if err != nil {
			return nil, err
		}
		out := make([]Entry, 0, len(des))
		for _, d := range des {
			if hidden[d.Name()] {
				continue
			}
			isDir := d.IsDir()
			if d.Type()&os.ModeSymlink != 0 {
				if st, err := os.Stat(path.Join(root, dir, d.Name())); err == nil {
					isDir = st.IsDir()
				}
			}
			out = append(out, Entry{Name: d.Name(), Dir: isDir})
		}
		return out, nil
	}
}

// Loaded is the result of listing one directory.
type Loaded struct {
	Dir     string
	Entries []Entry
	Err     error
}

type node struct {
	name, path string
	dir        bool
	depth      int
	expanded   bool
	loaded     bool
	loading    bool
	err        string
	children   []*node
}

// KeyMap is the file tree's keys.
type KeyMap struct{ Up, Down, Expand, Collapse, Refresh key.Binding }

// DefaultKeyMap returns the pane's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       keys.New("previous entry", "up", "k"),
		Down:     keys.New("next entry", "down", "j"),
		Expand:   keys.New("expand a folder", "enter", "right", "l"),
		Collapse: keys.New("collapse, or go to the parent", "left", "h"),
		Refresh:  keys.New("list the open folders again", "r"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Files", About: "The workspace's file tree (bottom left), listed folder by folder as you open them.",
		Bindings: []key.Binding{k.Up, k.Down, k.Expand, k.Collapse, k.Refresh}}
}

// Tree is the files pane.
type Tree struct {
	keys    KeyMap
	st      themes.Styles
	list    Lister
	root    *node
	rows    []*node
	sel     int
	off     int
	w, h    int
	focused bool
}

// New returns a tree whose root is not listed yet: run Init's command.
func New(st themes.Styles, list Lister) *Tree {
	t := &Tree{keys: DefaultKeyMap(), st: st, list: list, root: &node{dir: true, expanded: true, depth: -1}}
	return t
}

// KeyMap returns the pane's keys.
func (t *Tree) KeyMap() KeyMap { return t.keys }

// Init lists the root.
func (t *Tree) Init() tea.Cmd { return t.load(t.root) }

func (t *Tree) load(n *node) tea.Cmd {
	n.loading = true
	list, dir := t.list, n.path
	return func() tea.Msg {
		es, err := list(dir)
		return Loaded{Dir: dir, Entries: es, Err: err}
	}
}

// SetSize sets the inside size.
func (t *Tree) SetSize(w, h int) { t.w, t.h = w, h; t.clamp() }

// Focus gives the pane the keys.
func (t *Tree) Focus() { t.focused = true }

// Blur takes them away.
func (t *Tree) Blur() { t.focused = false }

func (t *Tree) find(p string) *node {
	if p == "" {
		return t.root
	}
	n := t.root
	for _, part := range strings.Split(p, "/") {
		var next *node
		for _, c := range n.children {
			if c.name == part {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// Apply takes a listing; expansion state of known children survives.
func (t *Tree) Apply(msg Loaded) {
	n := t.find(msg.Dir)
	if n == nil {
		return
	}
	n.loading = false
	if msg.Err != nil {
		n.err = msg.Err.Error()
		t.flatten()
		return
	}
	old := map[string]*node{}
	for _, c := range n.children {
		old[c.name] = c
	}
	es := append([]Entry(nil), msg.Entries...)
	sort.Slice(es, func(i, j int) bool {
		if es[i].Dir != es[j].Dir {
			return es[i].Dir
		}
		return strings.ToLower(es[i].Name) < strings.ToLower(es[j].Name)
	})
	n.children = n.children[:0]
	for _, e := range es {
		if c, ok := old[e.Name]; ok && c.dir == e.Dir {
			n.children = append(n.children, c)
			continue
		}
		n.children = append(n.children, &node{name: e.Name, path: path.Join(n.path, e.Name), dir: e.Dir, depth: n.depth + 1})
	}
	n.loaded, n.err = true, ""
	t.flatten()
}

// Refresh lists every open folder again.
func (t *Tree) Refresh() tea.Cmd {
	var cmds []tea.Cmd
	var walk func(n *node)
	walk = func(n *node) {
		if n.dir && n.expanded && n.loaded {
			cmds = append(cmds, t.load(n))
			for _, c := range n.children {
				walk(c)
			}
		}
	}
	walk(t.root)
	return tea.Batch(cmds...)
}

func (t *Tree) flatten() {
	var cur string
	if t.sel < len(t.rows) {
		cur = t.rows[t.sel].path
	}
	t.rows = t.rows[:0]
	var walk func(n *node)
	walk = func(n *node) {
		for _, c := range n.children {
			t.rows = append(t.rows, c)
			if c.dir && c.expanded {
				walk(c)
			}
		}
	}
	walk(t.root)
	for i, r := range t.rows {
		if r.path == cur {
			t.sel = i
		}
	}
	t.clamp()
}

func (t *Tree) clamp() {
	t.sel = min(max(t.sel, 0), max(len(t.rows)-1, 0))
	if t.sel < t.off {
		t.off = t.sel
	}
	if t.h > 0 && t.sel >= t.off+t.h {
		t.off = t.sel - t.h + 1
	}
	t.off = min(max(t.off, 0), max(len(t.rows)-t.h, 0))
}

// Scroll moves the selection by n rows.
func (t *Tree) Scroll(n int) { t.sel += n; t.clamp() }

// Click selects a row; a click on the selected folder toggles it.
func (t *Tree) Click(row int) tea.Cmd {
	i := t.off + row
	if i >= len(t.rows) {
		return nil
	}
	if i == t.sel {
		return t.toggle()
	}
	t.sel = i
	return nil
}

func (t *Tree) toggle() tea.Cmd {
	if t.sel >= len(t.rows) {
		return nil
	}
	n := t.rows[t.sel]
	if !n.dir {
		return nil
	}
	n.expanded = !n.expanded
	var cmd tea.Cmd
	if n.expanded && !n.loaded && !n.loading {
		cmd = t.load(n)
	}
	t.flatten()
	return cmd
}

// HandleKey acts on a key; listing a folder is returned as a command.
func (t *Tree) HandleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := t.keys
	switch {
	case key.Matches(msg, k.Up):
		t.Scroll(-1)
	case key.Matches(msg, k.Down):
		t.Scroll(1)
	case key.Matches(msg, k.Expand):
		if t.sel < len(t.rows) && t.rows[t.sel].dir && !t.rows[t.sel].expanded {
			return t.toggle()
		}
	case key.Matches(msg, k.Collapse):
		t.collapse()
	case key.Matches(msg, k.Refresh):
		return t.Refresh()
	}
	return nil
}

func (t *Tree) collapse() {
	if t.sel >= len(t.rows) {
		return
	}
	n := t.rows[t.sel]
	if n.dir && n.expanded {
		n.expanded = false
		t.flatten()
		return
	}
	parent := path.Dir(n.path)
	for i, r := range t.rows {
		if r.path == parent {
			t.sel = i
			t.clamp()
			return
		}
	}
}

// View returns the inside lines.
func (t *Tree) View() []string {
	switch {
	case t.root.err != "":
		return []string{t.st.Error.Render(t.root.err)}
	case !t.root.loaded:
		return []string{t.st.Subtle.Render("listing…")}
	case len(t.rows) == 0:
		return []string{t.st.Subtle.Render("The workspace is empty.")}
	}
	out := make([]string, 0, t.h)
	for i := t.off; i < len(t.rows) && len(out) < t.h; i++ {
		out = append(out, t.row(t.rows[i], i == t.sel))
	}
	return out
}

func (t *Tree) row(n *node, selected bool) string {
	icon := "  "
	name := n.name
	style := t.st.Base
	if n.dir {
		icon = "▸ "
		if n.expanded {
			icon = "▾ "
		}
		name += "/"
		style = t.st.Accent
	}
	suffix := ""
	switch {
	case n.loading:
		suffix = " …"
	case n.err != "":
		suffix = " ✗ " + n.err
	}
	text := ansi.Truncate(strings.Repeat("  ", max(n.depth, 0))+icon+name+suffix, t.w, "…")
	if selected && t.focused {
		return t.st.Selected.Render(text)
	}
	if n.err != "" {
		return t.st.Error.Render(text)
	}
	return style.Render(text)
}
