// Package diff shows a unified diff: each line coloured by what it is
// (added, removed, hunk header, file header, context), scrolled by line or
// by hunk. The same line styling serves the short previews of write
// approvals in Action required and the full view in a centre tab.
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
func Line(st themes.Styles, l string) string {
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
type KeyMap struct{ Up, Down, PageUp, PageDown, NextHunk, PrevHunk, Top, Bottom key.Binding }

// DefaultKeyMap returns the view's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up: keys.New("scroll up", "up", "k"), Down: keys.New("scroll down", "down", "j"),
		PageUp: keys.New("page up", "pgup", "ctrl+b"), PageDown: keys.New("page down", "pgdown", "ctrl+f"),
		NextHunk: keys.New("next hunk", "]"), PrevHunk: keys.New("previous hunk", "["),
		Top: keys.New("first line", "home", "g"), Bottom: keys.New("last line", "end", "G"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Diff tab", About: "A diff opened from Action required (`v` on a write approval).",
		Bindings: []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.NextHunk, k.PrevHunk, k.Top, k.Bottom},
		Short:    []string{"]", "[", "↑/k", "↓/j"}}
}

// View is a scrollable diff.
type View struct {
	keys  KeyMap
	st    themes.Styles
	title string
	lines []string
	hunks []int // line index of each hunk header
	off   int
	w, h  int
}

// New returns a view of a unified diff.
func New(st themes.Styles, title, text string) *View {
	v := &View{keys: DefaultKeyMap(), st: st, title: title}
	v.lines = strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range v.lines {
		if strings.HasPrefix(l, "@@") {
			v.hunks = append(v.hunks, i)
		}
	}
	return v
}

// Title returns what the view shows.
func (v *View) Title() string { return v.title }

// KeyMap returns the view's keys.
func (v *View) KeyMap() KeyMap { return v.keys }

// SetSize sets the inside size.
func (v *View) SetSize(w, h int) { v.w, v.h = w, h; v.clamp() }

// Offset returns the first shown line.
func (v *View) Offset() int { return v.off }

func (v *View) clamp() { v.off = min(max(v.off, 0), max(len(v.lines)-v.h+1, 0)) }

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
		v.off = len(v.lines)
		v.clamp()
	}
}

// View returns the inside lines: a summary line, then the visible diff.
func (v *View) View() []string {
	add, del := Stat(strings.Join(v.lines, "\n"))
	cur := 0
	for i, h := range v.hunks {
		if h <= v.off {
			cur = i + 1
		}
	}
	head := v.st.Success.Render("+"+strconv.Itoa(add)) + " " + v.st.Error.Render("-"+strconv.Itoa(del)) +
		v.st.Subtle.Render(" · hunk "+strconv.Itoa(cur)+"/"+strconv.Itoa(len(v.hunks))+" · ] next [ previous")
	out := []string{head}
	for i := v.off; i < len(v.lines) && len(out) < v.h; i++ {
		out = append(out, Line(v.st, v.lines[i]))
	}
	return out
}
