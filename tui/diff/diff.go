package diff

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Line styles one line of a unified diff.
func Line(st themes.Styles, l string) string { return lineWith(st, l, nil) }

// lineWith styles a line, marking its changed words when parts are given.
func lineWith(st themes.Styles, l string, parts []Part) string {
	if parts != nil && (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) {
		base, word := st.DiffDel, st.DiffDelWord
		if l[0] == '+' {
			base, word = st.DiffAdd, st.DiffAddWord
		}
		return base.Render(l[:1]) + renderParts(expandParts(parts), base, word)
	}
	l = ansi.Strip(strings.ReplaceAll(l, "\t", "    "))
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		return st.DiffMeta.Render(l)
	case strings.HasPrefix(l, "@@"):
		return st.DiffHunk.Render(l)
	case strings.HasPrefix(l, "+"):
		return st.DiffAdd.Render(l)
	case strings.HasPrefix(l, "-"):
		return st.DiffDel.Render(l)
	}
	return st.Base.Render(l)
}

// Stat counts the added and removed lines of a diff.
func Stat(text string) (added, removed int) {
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// KeyMap is the diff view's keys.
type KeyMap struct{ Up, Down, PageUp, PageDown, NextHunk, PrevHunk, Top, Bottom, Side key.Binding }

// DefaultKeyMap returns the view's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up: keys.New("scroll up", "up", "k"), Down: keys.New("scroll down", "down", "j"),
		PageUp: keys.New("page up", "pgup", "ctrl+b"), PageDown: keys.New("page down", "pgdown", "ctrl+f"),
		NextHunk: keys.New("next hunk", "]"), PrevHunk: keys.New("previous hunk", "["),
		Top: keys.New("first line", "home", "g"), Bottom: keys.New("last line", "end", "G"),
		Side: keys.New("side by side or unified (side by side is the default from 140 columns)", "s"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Diff tab", About: "A diff opened from Action required (`v` on a write approval).",
		Bindings: []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.NextHunk, k.PrevHunk, k.Top, k.Bottom, k.Side},
		Short:    []string{"]", "[", "s", "↑/k"}}
}

// SideBySideWidth is the inside width from which a diff is shown side by
// side unless the operator chose otherwise.
const SideBySideWidth = 140

// View is a scrollable diff, unified or side by side. Both layouts are
// worked out once; drawing styles only the rows in view.
type View struct {
	keys  KeyMap
	st    themes.Styles
	title string
	lines []string       // the unified diff
	parts map[int][]Part // changed words of paired lines, by line
	rows  []row          // the side-by-side layout
	hunks []int          // index of each hunk header (lines or rows, by mode)
	add   int
	del   int

	side   bool // drawing side by side
	chosen bool // the operator chose the mode (no automatic switch)
	off    int
	w, h   int
}

// New returns a view of a unified diff.
func New(st themes.Styles, title, text string) *View {
	v := &View{keys: DefaultKeyMap(), st: st, title: title}
	v.lines = strings.Split(strings.TrimRight(text, "\n"), "\n")
	v.rows, v.parts = parse(v.lines)
	v.add, v.del = Stat(text)
	v.indexHunks()
	return v
}

// SetStyles changes the styles (the theme changed).
func (v *View) SetStyles(st themes.Styles) { v.st = st }

// SideBySide reports whether the view draws side by side.
func (v *View) SideBySide() bool { return v.side }

// SetSideBySide chooses the layout, keeping the hunk in view.
func (v *View) SetSideBySide(on bool) {
	v.chosen = true
	v.setSide(on)
}

func (v *View) setSide(on bool) {
	if on == v.side {
		return
	}
	cur := v.currentHunk()
	v.side = on
	v.indexHunks()
	v.off = 0
	if cur > 0 && cur <= len(v.hunks) {
		v.off = v.hunks[cur-1]
	}
	v.clamp()
}

func (v *View) indexHunks() {
	v.hunks = v.hunks[:0]
	if v.side {
		for i, r := range v.rows {
			if r.kind == rowHunk {
				v.hunks = append(v.hunks, i)
			}
		}
		return
	}
	for i, l := range v.lines {
		if strings.HasPrefix(l, "@@") {
			v.hunks = append(v.hunks, i)
		}
	}
}

// length is the number of rows of the current layout.
func (v *View) length() int {
	if v.side {
		return len(v.rows)
	}
	return len(v.lines)
}

func (v *View) currentHunk() int {
	cur := 0
	for i, h := range v.hunks {
		if h <= v.off {
			cur = i + 1
		}
	}
	return cur
}

// Title returns what the view shows.
func (v *View) Title() string { return v.title }

// KeyMap returns the view's keys.
func (v *View) KeyMap() KeyMap { return v.keys }

// SetKeyMap replaces the keys (the configuration's overrides).
func (v *View) SetKeyMap(k KeyMap) { v.keys = k }

// SetSize sets the inside size; until the operator chooses, a wide view
// goes side by side and a narrow one unified.
func (v *View) SetSize(w, h int) {
	v.w, v.h = w, h
	if !v.chosen {
		v.setSide(w >= SideBySideWidth)
	}
	v.clamp()
}

// Offset returns the first shown line.
func (v *View) Offset() int { return v.off }

func (v *View) clamp() { v.off = min(max(v.off, 0), max(v.length()-v.h+1, 0)) }

// Scroll moves by n lines.
func (v *View) Scroll(n int) { v.off += n; v.clamp() }

// Hunk moves to the next (dir 1) or previous (-1) hunk.
func (v *View) Hunk(dir int) {
	if dir > 0 {
		for _, h := range v.hunks {
			if h > v.off {
				v.off = h
				break
			}
		}
	} else {
		for i := len(v.hunks) - 1; i >= 0; i-- {
			if v.hunks[i] < v.off {
				v.off = v.hunks[i]
				break
			}
		}
	}
	v.clamp()
}

// HandleKey acts on a key.
func (v *View) HandleKey(msg tea.KeyPressMsg) {
	k := v.keys
	switch {
	case key.Matches(msg, k.Up):
		v.Scroll(-1)
	case key.Matches(msg, k.Down):
		v.Scroll(1)
	case key.Matches(msg, k.PageUp):
		v.Scroll(-max(v.h-2, 1))
	case key.Matches(msg, k.PageDown):
		v.Scroll(max(v.h-2, 1))
	case key.Matches(msg, k.NextHunk):
		v.Hunk(1)
	case key.Matches(msg, k.PrevHunk):
		v.Hunk(-1)
	case key.Matches(msg, k.Top):
		v.off = 0
	case key.Matches(msg, k.Bottom):
		v.off = v.length()
		v.clamp()
	case key.Matches(msg, k.Side):
		v.SetSideBySide(!v.side)
	}
}

// View returns the inside lines: a summary line, then the visible diff.
func (v *View) View() []string {
	mode := "unified"
	if v.side {
		mode = "side by side"
	}
	// Above the first hunk (the file's header lines) the first is the one
	// coming, so it counts from 1; a diff of no hunk (a binary file, a
	// mode change) has no hunks to count or move between.
	where, hint := " · no line changes · ", " · s layout"
	if n := len(v.hunks); n > 0 {
		where = " · hunk " + strconv.Itoa(max(v.currentHunk(), 1)) + "/" + strconv.Itoa(n) + " · "
		hint = " · ] next [ previous s layout"
	}
	head := v.st.Success.Render("+"+strconv.Itoa(v.add)) + " " + v.st.Error.Render("-"+strconv.Itoa(v.del)) +
		v.st.Subtle.Render(where+mode+hint)
	out := []string{ansi.Truncate(head, v.w, "…")}
	if v.side {
		half := max((v.w-3)/2, 8)
		for i := v.off; i < len(v.rows) && len(out) < v.h; i++ {
			out = append(out, sideBySide(v.st, v.rows[i], half))
		}
		return out
	}
	for i := v.off; i < len(v.lines) && len(out) < v.h; i++ {
		out = append(out, lineWith(v.st, v.lines[i], v.parts[i]))
	}
	return out
}
