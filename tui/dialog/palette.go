package dialog

import (
	"sort"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/input"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Entry is one line of a Palette: what it does, where, and its key.
type Entry struct {
	Scope string // "Global", "Editor tab"...
	Key   string // as shown: "ctrl+s"
	Desc  string
}

// Palette is a fuzzy-filtered list: type to narrow it, arrows to move,
// enter to choose (Result.Chosen is the chosen entry's index in the
// entries given), esc to close.
type Palette struct {
	keys    KeyMap // the studio\'s (SetKeyMap), else the defaults
	st      themes.Styles
	title   string
	entries []Entry
	shown   []Entry
	index   []int // shown[i] is entries[index[i]]
	in      *input.Line
	sel     int
	off     int
}

// NewPalette returns a palette over entries, in their order until a
// filter ranks them.
func NewPalette(st themes.Styles, title string, entries []Entry) *Palette {
	in := input.New(st, ": ")
	in.Placeholder = "type to filter"
	in.Focus()
	p := &Palette{keys: DefaultKeyMap(), st: st, title: title, entries: entries, in: in}
	p.filter()
	return p
}

// Shown returns the entries the filter keeps, best first.
func (p *Palette) Shown() []Entry { return p.shown }

func (p *Palette) filter() {
	q := strings.ToLower(strings.TrimSpace(p.in.Value()))
	type scored struct {
		e     Entry
		score int
		i     int
	}
	var list []scored
	for i, e := range p.entries {
		if s, ok := Fuzzy(q, strings.ToLower(e.Desc+" "+e.Scope+" "+e.Key)); ok {
			list = append(list, scored{e, s, i})
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].score > list[j].score })
	p.shown, p.index = p.shown[:0], p.index[:0]
	for _, s := range list {
		p.shown = append(p.shown, s.e)
		p.index = append(p.index, s.i)
	}
	p.sel, p.off = 0, 0
}

// Fuzzy reports whether every rune of pattern appears in text in order,
// and scores the match: runs of adjacent runes and matches at word starts
// score higher.
func Fuzzy(pattern, text string) (int, bool) {
	if pattern == "" {
		return 0, true
	}
	pr := []rune(pattern)
	score, j, run := 0, 0, 0
	prev := ' '
	for _, r := range text {
		if j < len(pr) && r == pr[j] {
			j++
			run++
			score += run * 2
			if !unicode.IsLetter(prev) && !unicode.IsDigit(prev) {
				score += 5
			}
		} else {
			run = 0
		}
		prev = r
	}
	if j < len(pr) {
		return 0, false
	}
	if strings.Contains(text, pattern) {
		score += 20
	}
	return score, true
}

// HandleKey implements Dialog.
func (p *Palette) HandleKey(msg tea.KeyPressMsg) Result {
	switch k := p.keys.Palette; {
	case key.Matches(msg, k.Close):
		return Result{Closed: true}
	case key.Matches(msg, k.Run):
		if len(p.shown) == 0 {
			return Result{}
		}
		return Result{Closed: true, OK: true, Chosen: p.index[p.sel]}
	case key.Matches(msg, k.Up):
		p.sel = max(p.sel-1, 0)
		return Result{}
	case key.Matches(msg, k.Down):
		p.sel = min(p.sel+1, max(len(p.shown)-1, 0))
		return Result{}
	}
	if p.in.Update(msg) {
		p.filter()
	}
	return Result{}
}

// Paste implements Dialog.
func (p *Palette) Paste(msg tea.PasteMsg) { p.in.Update(msg); p.filter() }

// View implements Dialog.
func (p *Palette) View(width, height int) string {
	w := min(width-4, 80)
	p.in.SetWidth(w - 4)
	lines := []string{p.in.View(), ""}
	room := max(min(height-6, 16), 3)
	if p.sel < p.off {
		p.off = p.sel
	}
	if p.sel >= p.off+room {
		p.off = p.sel - room + 1
	}
	kw := 0
	for _, e := range p.shown {
		kw = max(kw, ansi.StringWidth(e.Key))
	}
	kw = min(kw, 18)
	for i := p.off; i < len(p.shown) && i < p.off+room; i++ {
		e := p.shown[i]
		k := ansi.Truncate(e.Key, kw, "…")
		text := k + strings.Repeat(" ", kw-ansi.StringWidth(k)+2) + e.Desc + "  · " + e.Scope
		text = ansi.Truncate(text, w-5, "…")
		if i == p.sel {
			lines = append(lines, p.st.Selected.Render(text))
			continue
		}
		lines = append(lines, p.st.Key.Render(k)+strings.Repeat(" ", kw-ansi.StringWidth(k)+2)+
			ansi.Truncate(p.st.Base.Render(e.Desc)+p.st.Subtle.Render("  · "+e.Scope), max(w-7-kw, 1), "…"))
	}
	if len(p.shown) == 0 {
		lines = append(lines, p.st.Subtle.Render("nothing matches"))
	}
	lines = append(lines, "", p.st.Key.Render(hint(p.keys.Palette.Run, 1))+" "+p.st.Hint.Render("run")+"   "+
		p.st.Key.Render(keys.Label([]string{p.keys.Palette.Up.Keys()[0], p.keys.Palette.Down.Keys()[0]}))+" "+p.st.Hint.Render("choose")+"   "+
		p.st.Key.Render(hint(p.keys.Palette.Close, 1))+" "+p.st.Hint.Render("close"))
	return box(p.st, p.title, lines, w, width, height)
}

// SetKeyMap gives the dialog the studio's keys.
func (d *Palette) SetKeyMap(km KeyMap) { d.keys = km }
