package activity

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/input"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Limit is how many entries the pane keeps.
const Limit = 1000

// Entry is one line of the stream.
type Entry struct {
	Time      time.Time
	SessionID string // "" for workspace-wide entries
	Text      string
	Tone      themes.Tone
}

// KeyMap is the activity pane's keys.
type KeyMap struct{ Up, Down, Top, Bottom, Detail, Open, Filter, Kind key.Binding }

// DefaultKeyMap returns the pane's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:     keys.New("newer entry", "up", "k"),
		Down:   keys.New("older entry", "down", "j"),
		Top:    keys.New("newest entry, follow", "home", "g"),
		Bottom: keys.New("oldest entry", "end", "G"),
		Detail: keys.New("the entry whole (the pane cuts long ones)", "enter"),
		Open:   keys.New("open the entry's session", "o"),
		Filter: keys.New("filter by text (esc clears)", "/"),
		Kind:   keys.New("cycle what shows: everything, sessions, files, problems", "v"),
	}
}

// Scope returns the keymap as data for help and docs.
func (k KeyMap) Scope() keys.Scope {
	return keys.Scope{Name: "Activity", About: "The activity stream (top right), newest first. It follows the newest entry; scrolled down, it stays where you are and its title counts the new entries above.",
		Bindings: []key.Binding{k.Up, k.Down, k.Top, k.Bottom, k.Detail, k.Open, k.Filter, k.Kind}}
}

// Open asks the root for an entry's session tab, or, with Detail, to show
// the entry whole.
type Open struct {
	SessionID string
	Detail    *Entry
}

// Kind is what the stream shows.
type Kind int

// The kinds of entries the stream can be narrowed to.
const (
	KindAll      Kind = iota
	KindSessions      // entries of a session
	KindFiles         // workspace-wide entries: file changes, notices
	KindProblems      // warnings and errors
	kindCount
)

func (k Kind) String() string {
	return [...]string{"everything", "sessions", "files", "problems"}[k]
}

func (k Kind) keep(e Entry) bool {
	switch k {
	case KindSessions:
		return e.SessionID != ""
	case KindFiles:
		return e.SessionID == ""
	case KindProblems:
		return e.Tone == themes.ToneWarning || e.Tone == themes.ToneError
	}
	return true
}

// Pane is the activity pane.
type Pane struct {
	keys    KeyMap
	st      themes.Styles
	filter  *input.Line
	typing  bool
	kind    Kind
	shown   []int   // indexes of the entries the filter keeps, newest first; nil: all
	entries []Entry // oldest first; drawn newest first
	sel     int     // index from the newest (0 is the newest)
	off     int
	w, h    int
	focused bool
	// unseen counts the entries added above the selection while the
	// operator was scrolled down: the title says "N new ↑".
	unseen int
}

// New returns an empty stream.
func New(st themes.Styles) *Pane {
	return &Pane{keys: DefaultKeyMap(), st: st, filter: input.New(st, "/")}
}

// TakesText reports whether the filter line is open.
func (p *Pane) TakesText() bool { return p.typing }

// Filtered reports whether a filter narrows the stream.
func (p *Pane) Filtered() bool { return p.filter.Value() != "" || p.kind != KindAll }

// Title is the pane's title, with the filter when one is set.
func (p *Pane) Title() string {
	t := "Activity"
	if p.kind != KindAll {
		t += " · " + p.kind.String()
	}
	if f := p.filter.Value(); f != "" {
		t += " · /" + f
	}
	if p.unseen > 0 {
		t += " · " + strconv.Itoa(p.unseen) + " new ↑"
	}
	return t
}

// refilter recomputes which entries show.
func (p *Pane) refilter() {
	if !p.Filtered() {
		p.shown = nil
		p.clamp()
		return
	}
	q := strings.ToLower(p.filter.Value())
	p.shown = p.shown[:0]
	for i := len(p.entries) - 1; i >= 0; i-- {
		e := p.entries[i]
		if p.kind.keep(e) && (q == "" || strings.Contains(strings.ToLower(e.Text), q)) {
			p.shown = append(p.shown, i)
		}
	}
	p.clamp()
}

// count is the number of entries shown.
func (p *Pane) count() int {
	if p.shown == nil && !p.Filtered() {
		return len(p.entries)
	}
	return len(p.shown)
}

// KeyMap returns the pane's keys.
func (p *Pane) KeyMap() KeyMap { return p.keys }

// SetKeyMap replaces the keys (the configuration's overrides).
func (p *Pane) SetKeyMap(k KeyMap) { p.keys = k }

// SetSize sets the inside size.
func (p *Pane) SetSize(w, h int) { p.w, p.h = w, h; p.clamp() }

// Focus gives the pane the keys.
func (p *Pane) Focus() { p.focused = true }

// Blur takes them away.
func (p *Pane) Blur() { p.focused = false }

// Len returns how many entries the pane holds.
func (p *Pane) Len() int { return len(p.entries) }

// Add appends an entry; the selection stays on the entry it was on.
func (p *Pane) Add(e Entry) {
	p.entries = append(p.entries, e)
	if len(p.entries) > Limit {
		p.entries = append(p.entries[:0:0], p.entries[len(p.entries)-Limit:]...)
	}
	if p.Filtered() {
		p.refilter()
		return
	}
	if p.sel > 0 || p.off > 0 {
		// Scrolled down: the view stays on what the operator reads.
		p.sel++
		p.off++
		p.unseen++
	}
	p.clamp()
}

// Prepend puts earlier entries (oldest first) before those the pane holds,
// the newest Limit of all kept; the selection stays where it is.
func (p *Pane) Prepend(earlier []Entry) {
	all := append(append([]Entry(nil), earlier...), p.entries...)
	if len(all) > Limit {
		all = all[len(all)-Limit:]
	}
	p.entries = all
	if p.Filtered() {
		p.refilter()
		return
	}
	p.clamp()
}

// Newest returns the newest n entries, newest first.
func (p *Pane) Newest(n int) []Entry {
	out := make([]Entry, 0, n)
	for i := len(p.entries) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, p.entries[i])
	}
	return out
}

func (p *Pane) at(i int) Entry {
	if p.Filtered() {
		return p.entries[p.shown[i]]
	}
	return p.entries[len(p.entries)-1-i]
}

func (p *Pane) clamp() {
	n := p.count()
	p.sel = min(max(p.sel, 0), max(n-1, 0))
	if p.sel < p.off {
		p.off = p.sel
	}
	if p.h > 0 && p.sel >= p.off+p.h {
		p.off = p.sel - p.h + 1
	}
	p.off = min(max(p.off, 0), max(n-p.h, 0))
}

// Scroll moves the selection by n entries.
func (p *Pane) Scroll(n int) {
	p.sel += n
	p.clamp()
	if p.sel == 0 {
		p.unseen = 0 // back at the newest: following again
	}
	p.unseen = min(p.unseen, p.sel)
}

// Click selects the entry on an inside row; again reports that it was
// already selected (a second click: the root shows it whole).
func (p *Pane) Click(row int) (e Entry, again bool) {
	i := p.off + row
	if i >= p.count() {
		return Entry{}, false
	}
	again = i == p.sel
	p.sel = i
	if p.sel == 0 {
		p.unseen = 0
	}
	return p.at(i), again
}

// HandleKey acts on a key.
func (p *Pane) HandleKey(msg tea.KeyPressMsg) *Open {
	if p.typing {
		switch msg.String() {
		case "esc":
			p.typing = false
			p.filter.Reset()
			p.filter.Blur()
		case "enter":
			p.typing = false
			p.filter.Blur()
		default:
			p.filter.Update(msg)
		}
		p.refilter()
		return nil
	}
	switch {
	case key.Matches(msg, p.keys.Filter):
		p.typing = true
		p.filter.Focus()
	case key.Matches(msg, p.keys.Kind):
		p.kind = (p.kind + 1) % kindCount
		p.refilter()
	case key.Matches(msg, p.keys.Up):
		p.Scroll(-1)
	case key.Matches(msg, p.keys.Down):
		p.Scroll(1)
	case key.Matches(msg, p.keys.Top):
		p.Scroll(-keys.Far)
	case key.Matches(msg, p.keys.Bottom):
		p.Scroll(keys.Far)
	case key.Matches(msg, p.keys.Open):
		if p.count() > 0 && p.at(p.sel).SessionID != "" {
			return &Open{SessionID: p.at(p.sel).SessionID}
		}
	case key.Matches(msg, p.keys.Detail):
		if p.count() > 0 {
			e := p.at(p.sel)
			return &Open{SessionID: e.SessionID, Detail: &e}
		}
	}
	return nil
}

// View returns the inside lines.
func (p *Pane) View() []string {
	var out []string
	h := p.h
	if p.typing || p.filter.Value() != "" {
		p.filter.SetWidth(p.w)
		out = append(out, p.filter.View())
		h--
	}
	switch {
	case len(p.entries) == 0:
		return append(out, p.st.Subtle.Render("Nothing yet."))
	case p.count() == 0:
		return append(out, p.st.Subtle.Render("Nothing matches the filter."))
	}
	for i := p.off; i < p.count() && i-p.off < h; i++ {
		e := p.at(i)
		stamp := e.Time.Local().Format("15:04")
		text := ansi.Truncate(strings.ReplaceAll(e.Text, "\n", " "), max(p.w-6, 1), "…")
		if i == p.sel && p.focused {
			out = append(out, p.st.Selected.Render(stamp+" "+text))
			continue
		}
		out = append(out, p.st.Subtle.Render(stamp)+" "+p.st.Tone(e.Tone).Render(text))
	}
	return out
}

// SetStyles changes the styles (the theme changed).
func (p *Pane) SetStyles(st themes.Styles) { p.st = st; p.filter.SetStyles(st) }
