package files

import (
	"path"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Loaded reports that a folder was listed (or why not).
type Loaded struct {
	Dir string
	Err error
}

// Open asks the root to open a file in the editor.
type Open struct{ Path string }

// Changes is a batch from the workspace watcher.
type Changes []afiles.Change

// KeyMap is the file tree's keys.
type KeyMap struct {
	Up, Down, Top, Bottom, Expand, Collapse, Refresh, Hidden key.Binding
	NewFile, NewFolder, Rename, Delete, Upload, Download     key.Binding
}

// DefaultKeyMap returns the pane's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:        keys.New("previous entry", "up", "k"),
		Down:      keys.New("next entry", "down", "j"),
		Top:       keys.New("first entry", "home", "g"),
		Bottom:    keys.New("last entry listed", "end", "G"),
		Expand:    keys.New("expand a folder, open a file in the editor", "enter", "right", "l"),
		Collapse:  keys.New("collapse, or go to the parent", "left", "h"),
		Refresh:   keys.New("list the open folders again", "r"),
		Hidden:    keys.New("show or hide ignored files", "."),
		NewFile:   keys.New("new file in the selected folder (asks its name)", "a"),
		NewFolder: keys.New("new folder in the selected folder (asks its name)", "A"),
		Rename:    keys.New("rename or move the selected entry (asks the new path)", "m"),
		Delete:    keys.New("delete the selected entry (asks first)", "d"),
		Upload:    keys.New("upload a file or folder from this machine into the selected folder (asks its path)", "u"),
		Download:  keys.New("download the selected entry to this machine (asks where)", "D"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Files", About: "The workspace's file tree (bottom left), listed folder by folder as you open them. " +
		"A, M and D mark what was created, changed or deleted since a turn last started, in any session; • marks a folder with such changes inside. " +
		"The marks are the engine host's: every studio on the workspace, local or attached, opened before or after the change, shows the same. " +
		"The last line names the session and turn that last changed the selected entry, from the workspace history. " +
		"File operations are yours (the operator's): the activity stream shows them. " +
		"The pane follows the selected session: one on an instance shows that instance's files (the title names it; they open read-only, " +
		"and the file operations are the workspace's), one in place the workspace's; `f` in the Workspaces tab picks either.",
		Bindings: []key.Binding{k.Up, k.Down, k.Top, k.Bottom, k.Expand, k.Collapse, k.Refresh, k.Hidden,
			k.NewFile, k.NewFolder, k.Rename, k.Delete, k.Upload, k.Download},
		Short: []string{"enter/→/l", "a", "m", "d"}}
}

// Tree is the files pane.
type Tree struct {
	keys    KeyMap
	st      themes.Styles
	tree    *afiles.Tree
	loaded  bool
	err     string
	sel     int
	off     int
	w, h    int
	focused bool
	blame   blameCache
	// still: the tree is not the watched workspace's (an instance's), so
	// the workspace watcher's batches are not its changes.
	still bool
	// host are the host's change marks (marks.go), by path.
	host map[string]afiles.Mark
}

// New returns the pane over a workspace tree; run Init's command to list
// the root.
func New(st themes.Styles, tree *afiles.Tree) *Tree {
	return &Tree{keys: DefaultKeyMap(), st: st, tree: tree}
}

// KeyMap returns the pane's keys.
func (t *Tree) KeyMap() KeyMap { return t.keys }

// SetKeyMap replaces the pane's keys (the configuration's overrides).
func (t *Tree) SetKeyMap(k KeyMap) { t.keys = k }

// Init lists the root.
func (t *Tree) Init() tea.Cmd { return t.load("", false) }

func (t *Tree) load(dir string, expand bool) tea.Cmd {
	tree := t.tree
	return func() tea.Msg {
		if expand {
			return Loaded{Dir: dir, Err: tree.Expand(dir)}
		}
		return Loaded{Dir: dir, Err: tree.Load(dir)}
	}
}

// Apply takes a listing's outcome.
func (t *Tree) Apply(msg Loaded) {
	if msg.Dir == "" {
		t.loaded = true
		t.err = ""
		if msg.Err != nil {
			t.err = msg.Err.Error()
		}
	}
	t.clamp()
}

// ApplyChanges folds a watcher batch into the tree's contents (not into
// a tree that is not the watched workspace's: see Swap); the marks stay
// the host's.
func (t *Tree) ApplyChanges(c Changes) {
	if !t.still {
		t.tree.Apply(c)
		t.showMarks()
	}
}

// Swap shows another tree (an instance's, or the workspace's again) and
// returns the one it replaces; watched says the tree is the one the
// workspace watcher reports on. Run Init's command to list its root.
func (t *Tree) Swap(tree *afiles.Tree, watched bool) *afiles.Tree {
	prev := t.tree
	t.tree, t.still = tree, !watched
	t.loaded, t.err, t.sel, t.off = false, "", 0, 0
	t.SetBlamer(t.blame.by)
	if watched {
		t.tree.SetMarks(t.host)
	}
	return prev
}

// Refresh lists the root and every open folder again.
func (t *Tree) Refresh() tea.Cmd {
	cmds := []tea.Cmd{t.load("", false)}
	for _, r := range t.tree.Rows(0, t.tree.Len()) {
		if r.IsDir && r.Expanded {
			cmds = append(cmds, t.load(r.Path, false))
		}
	}
	return tea.Batch(cmds...)
}

// SetSize sets the inside size.
func (t *Tree) SetSize(w, h int) { t.w, t.h = w, h; t.clamp() }

// Focus gives the pane the keys.
func (t *Tree) Focus() { t.focused = true }

// Blur takes them away.
func (t *Tree) Blur() { t.focused = false }

// rowsH is how many tree rows fit above the blame line.
func (t *Tree) rowsH() int {
	if t.blame.by != nil {
		return max(t.h-1, 1)
	}
	return t.h
}

func (t *Tree) clamp() {
	n, h := t.tree.Len(), t.rowsH()
	t.sel = min(max(t.sel, 0), max(n-1, 0))
	if t.sel < t.off {
		t.off = t.sel
	}
	if h > 0 && t.sel >= t.off+h {
		t.off = t.sel - h + 1
	}
	t.off = min(max(t.off, 0), max(n-h, 0))
}

// Scroll moves the selection by n rows; the command blames the new
// selection.
func (t *Tree) Scroll(n int) tea.Cmd { t.sel += n; t.clamp(); return t.BlameSelected() }

func (t *Tree) selected() (afiles.Row, bool) {
	rows := t.tree.Rows(t.sel, 1)
	if len(rows) == 0 {
		return afiles.Row{}, false
	}
	return rows[0], true
}

// Click selects a row; a click on the selected folder toggles it.
func (t *Tree) Click(row int) tea.Cmd {
	i := t.off + row
	if i >= t.tree.Len() || row >= t.rowsH() {
		return nil
	}
	if i != t.sel {
		t.sel = i
		return t.BlameSelected()
	}
	r, ok := t.selected()
	if !ok {
		return nil
	}
	if !r.IsDir {
		return openFile(r.Path)
	}
	if r.Expanded {
		t.tree.Collapse(r.Path)
		t.clamp()
		return nil
	}
	return t.load(r.Path, true)
}

// HandleKey acts on a key; listing a folder, blaming the selection and
// asking the root for a file operation are returned as commands.
func (t *Tree) HandleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := t.keys
	if op, ok := t.opKey(msg); ok {
		return op
	}
	switch {
	case key.Matches(msg, k.Up):
		return t.Scroll(-1)
	case key.Matches(msg, k.Down):
		return t.Scroll(1)
	case key.Matches(msg, k.Top):
		return t.Scroll(-keys.Far)
	case key.Matches(msg, k.Bottom):
		return t.Scroll(keys.Far)
	case key.Matches(msg, k.Expand):
		if r, ok := t.selected(); ok && r.IsDir && !r.Expanded {
			return t.load(r.Path, true)
		} else if ok && !r.IsDir && !r.Broken {
			return openFile(r.Path)
		}
	case key.Matches(msg, k.Collapse):
		t.collapse()
		return t.BlameSelected()
	case key.Matches(msg, k.Refresh):
		return t.Refresh()
	case key.Matches(msg, k.Hidden):
		t.tree.SetShowHidden(!t.tree.ShowHidden())
		t.clamp()
	}
	return nil
}

func (t *Tree) collapse() {
	r, ok := t.selected()
	if !ok {
		return
	}
	if r.IsDir && r.Expanded {
		t.tree.Collapse(r.Path)
		t.clamp()
		return
	}
	if parent := path.Dir(r.Path); parent != "." {
		if i := t.tree.Index(parent); i >= 0 {
			t.sel = i
			t.clamp()
		}
	}
}

// View returns the inside lines.
func (t *Tree) View() []string {
	switch {
	case t.err != "":
		return []string{t.st.Error.Render(t.err)}
	case !t.loaded:
		return []string{t.st.Subtle.Render("listing…")}
	}
	rows := t.tree.Rows(t.off, t.rowsH())
	if len(rows) == 0 {
		return []string{t.st.Subtle.Render("The workspace is empty.")}
	}
	out := make([]string, 0, t.h)
	for i, r := range rows {
		out = append(out, t.row(r, t.off+i == t.sel))
	}
	if t.blame.by != nil && t.h > 1 {
		for len(out) < t.h-1 {
			out = append(out, "")
		}
		out = append(out, t.blameLine())
	}
	return out
}

func (t *Tree) row(r afiles.Row, selected bool) string {
	icon, name, style := "  ", r.Name, t.st.Base
	if r.IsDir {
		icon = "▸ "
		if r.Expanded {
			icon = "▾ "
		}
		name += "/"
		style = t.st.Accent
	}
	if r.Hidden || r.Broken {
		style = t.st.Subtle
	}
	mark, mtone := "", t.st.Base
	switch r.Mark.Kind {
	case afiles.MarkNew:
		mark, mtone = "A", t.st.Success
	case afiles.MarkChanged:
		mark, mtone = "M", t.st.Warning
	case afiles.MarkDeleted:
		mark, mtone = "D", t.st.Error
	default:
		if r.ChangedBelow {
			mark, mtone = "•", t.st.Warning
		}
	}
	if r.Err != nil {
		name += " ✗ " + r.Err.Error()
		style = t.st.Error
	}
	room := t.w
	if mark != "" {
		room -= 2
	}
	text := ansi.Truncate(strings.Repeat("  ", max(r.Depth, 0))+icon+name, max(room, 1), "…")
	pad := strings.Repeat(" ", max(room-ansi.StringWidth(text), 0))
	if selected && t.focused {
		if mark != "" {
			return t.st.Selected.Render(text + pad + " " + mark)
		}
		return t.st.Selected.Render(text)
	}
	if mark == "" {
		return style.Render(text)
	}
	return style.Render(text) + pad + " " + mtone.Render(mark)
}

func openFile(p string) tea.Cmd { return func() tea.Msg { return Open{Path: p} } }

// SetStyles changes the styles (the theme changed).
func (t *Tree) SetStyles(st themes.Styles) { t.st = st }

// Select puts the selection on the row of a path when the tree shows it;
// the command blames it.
func (t *Tree) Select(p string) (tea.Cmd, bool) {
	i := t.tree.Index(p)
	if i < 0 {
		return nil, false
	}
	t.sel = i
	t.clamp()
	return t.BlameSelected(), true
}

// Selected returns the selected row.
func (t *Tree) Selected() (afiles.Row, bool) { return t.selected() }
