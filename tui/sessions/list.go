package sessions

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/badge"
	"github.com/atelier-studio/atelier/tui/input"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// Mark is an unread mark: something changed in a session the operator has
// not looked at since.
type Mark int

// The marks. NeedsYou outranks Done.
const (
	MarkNone Mark = iota
	MarkDone
	MarkNeedsYou
)

// List is the sessions pane.
type List struct {
	keys    KeyMap
	st      themes.Styles
	w, h    int
	focused bool

	all   map[string]sess.Session
	order []string // ids of the shown sessions, in display order
	sel   string   // the selected session's id
	off   int      // first shown line
	// runs are the workflow runs (SetRuns); lines are the shown rows: a
	// session, or a run's group rows above its sessions (groups.go).
	runs  []runs.Run
	lines []line

	waits  map[string]badge.Wait
	marks  map[string]Mark
	status StatusFilter
	query  string
	input  *input.Line
	typing bool
	now    time.Time
}

// New returns an empty list.
func New(st themes.Styles) *List {
	in := input.New(st, "/")
	in.Placeholder = "title or agent"
	return &List{keys: DefaultKeyMap(), st: st, all: map[string]sess.Session{},
		waits: map[string]badge.Wait{}, marks: map[string]Mark{}, input: in}
}

// KeyMap returns the pane's keys.
func (l *List) KeyMap() KeyMap { return l.keys }

// SetKeyMap replaces the keys (the configuration's overrides).
func (l *List) SetKeyMap(k KeyMap) { l.keys = k }

// SetSize sets the pane's inside size.
func (l *List) SetSize(w, h int) { l.w, l.h = w, h; l.input.SetWidth(max(w, 1)); l.clamp() }

// Focus gives the pane the keys.
func (l *List) Focus() { l.focused = true }

// Blur takes them away.
func (l *List) Blur() { l.focused = false; l.stopTyping(true) }

// TakesText reports whether the filter line is open: it takes every key.
func (l *List) TakesText() bool { return l.typing }

// SetNow sets the clock the spinners and countdowns read.
func (l *List) SetNow(now time.Time) { l.now = now }

// Set replaces every session.
func (l *List) Set(all []sess.Session) {
	l.all = make(map[string]sess.Session, len(all))
	for _, s := range all {
		l.all[s.ID] = s
	}
	l.refresh()
}

// Upsert adds or updates one session.
func (l *List) Upsert(s sess.Session) { l.all[s.ID] = s; l.refresh() }

// Remove drops a deleted session.
func (l *List) Remove(id string) {
	delete(l.all, id)
	delete(l.marks, id)
	delete(l.waits, id)
	l.refresh()
}

// SetWait records what a session waits on (the zero Wait when nothing).
func (l *List) SetWait(id string, w badge.Wait) {
	if w == (badge.Wait{}) {
		delete(l.waits, id)
	} else {
		l.waits[id] = w
	}
	if l.status == NeedsYou {
		l.refresh()
	}
}

// SetMark sets or clears a session's unread mark.
func (l *List) SetMark(id string, m Mark) {
	if m == MarkNone {
		delete(l.marks, id)
		return
	}
	l.marks[id] = m
}

// Mark returns a session's unread mark.
func (l *List) Mark(id string) Mark { return l.marks[id] }

// Selected returns the selected session.
func (l *List) Selected() (sess.Session, bool) {
	s, ok := l.all[l.sel]
	return s, ok && l.index(l.sel) >= 0
}

// Select moves the selection to a session, if it is shown.
func (l *List) Select(id string) {
	if l.index(id) >= 0 {
		l.sel = id
		l.clamp()
	}
}

// Animated reports whether a shown badge changes by itself.
func (l *List) Animated() bool {
	for _, id := range l.order {
		if badge.Of(l.all[id], l.waits[id], l.now).Animated {
			return true
		}
	}
	return false
}

// NeedsOperator reports whether a session waits on the operator.
func (l *List) NeedsOperator(id string) bool {
	s := l.all[id]
	w := l.waits[id]
	return s.Status == sess.Waiting || w.Kind == sess.Approval || w.Kind == sess.Question || w.Kind == sess.Stuck
}

// refresh recomputes the shown rows: live sessions first, newest first
// within each group, then ended ones, newest first.
func (l *List) refresh() {
	l.order = l.order[:0]
	for id, s := range l.all {
		if l.status.keep(s, l.NeedsOperator(id)) && fuzzy(l.query, s.Title+" "+s.Agent) {
			l.order = append(l.order, id)
		}
	}
	sort.Slice(l.order, func(i, j int) bool {
		a, b := l.all[l.order[i]], l.all[l.order[j]]
		if a.Live() != b.Live() {
			return a.Live()
		}
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.After(b.CreatedAt)
		}
		return a.ID > b.ID
	})
	l.group()
	l.clamp()
}

func (l *List) index(id string) int {
	for i, o := range l.order {
		if o == id {
			return i
		}
	}
	return -1
}

func (l *List) clamp() {
	if len(l.order) == 0 {
		l.off = 0
		return
	}
	if l.index(l.sel) < 0 {
		l.sel = l.order[0]
	}
	k := l.lineOf(l.sel)
	top := k
	if k >= 2 && l.lines[k-1].steps {
		top = k - 2 // the first session of a group shows its group's rows
	}
	rows := l.rows()
	if top < l.off {
		l.off = top
	}
	if rows > 0 && k >= l.off+rows {
		l.off = k - rows + 1
	}
	l.off = max(min(l.off, len(l.lines)-rows), 0)
}

// rows is how many session rows fit under the filter line.
func (l *List) rows() int { return max(l.h-1, 0) }

func (l *List) move(d int) {
	if len(l.order) == 0 {
		return
	}
	i := min(max(l.index(l.sel)+d, 0), len(l.order)-1)
	l.sel = l.order[i]
	l.clamp()
}

// Scroll moves the selection by n rows (the mouse wheel).
func (l *List) Scroll(n int) { l.move(n) }

// Click selects the session on an inside row; a click on the selected one
// opens it.
func (l *List) Click(row int) Action {
	i := l.off + row - 1
	if row < 1 || i >= len(l.lines) || l.lines[i].session == "" {
		return nil
	}
	if id := l.lines[i].session; id != l.sel {
		l.sel = id
		return nil
	}
	return Open{ID: l.sel}
}

// HandleKey acts on a key and returns what the root should do, if anything.
func (l *List) HandleKey(msg tea.KeyPressMsg) Action {
	if l.typing {
		l.typeKey(msg)
		return nil
	}
	k := l.keys
	switch {
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.Top):
		l.move(-keys.Far)
	case key.Matches(msg, k.Bottom):
		l.move(keys.Far)
	case key.Matches(msg, k.Filter):
		l.typing = true
		l.input.SetValue(l.query)
		l.input.Focus()
		return nil
	case key.Matches(msg, k.Status):
		l.status = l.status.next()
		l.refresh()
	}
	s, ok := l.Selected()
	if !ok {
		return nil
	}
	switch {
	case key.Matches(msg, k.Open):
		return Open{ID: s.ID}
	case key.Matches(msg, k.Start):
		return Start{ID: s.ID}
	case key.Matches(msg, k.Archive):
		return Archive{ID: s.ID, Archived: !s.Archived}
	case key.Matches(msg, k.Fork):
		return Fork{ID: s.ID, Title: s.Title}
	case key.Matches(msg, k.Delete):
		return Delete{ID: s.ID, Title: s.Title, Live: s.Live()}
	}
	return nil
}

func (l *List) typeKey(msg tea.KeyPressMsg) {
	switch msg.String() {
	case "enter":
		l.stopTyping(false)
		return
	case "esc":
		l.stopTyping(true)
		return
	}
	l.input.Update(msg)
	l.query = strings.TrimSpace(l.input.Value())
	l.refresh()
}

// Paste types pasted text into the filter line when it is open.
func (l *List) Paste(msg tea.PasteMsg) {
	if l.typing {
		l.input.Update(msg)
		l.query = strings.TrimSpace(l.input.Value())
		l.refresh()
	}
}

func (l *List) stopTyping(clear bool) {
	if !l.typing && !clear {
		return
	}
	l.typing = false
	l.input.Blur()
	if clear && l.query != "" {
		l.query = ""
		l.refresh()
	}
}

// Title is the pane's title with the active filter.
func (l *List) Title() string {
	t := "Sessions"
	if l.status != All {
		t += " · " + l.status.String()
	}
	return t
}

// Count is shown at the right of the title: shown of total.
func (l *List) Count() string {
	if len(l.order) == len(l.all) {
		return strconv.Itoa(len(l.all))
	}
	return strconv.Itoa(len(l.order)) + "/" + strconv.Itoa(len(l.all))
}

// View returns the pane's inside, one string per row.
func (l *List) View() []string {
	out := make([]string, 0, l.h)
	switch {
	case l.typing:
		out = append(out, l.input.View())
	case l.query != "":
		out = append(out, l.st.Subtle.Render("filter: "+l.query+"  (/ to edit, esc clears)"))
	default:
		out = append(out, l.st.Subtle.Render(l.hint()))
	}
	if len(l.order) == 0 {
		if len(l.all) == 0 {
			return append(out, l.st.Subtle.Render("No sessions yet: press n to start one."))
		}
		return append(out, l.st.Subtle.Render("No session matches the filter."))
	}
	for i := l.off; i < len(l.lines) && len(out) < l.h; i++ {
		out = append(out, l.lineView(l.lines[i]))
	}
	return out
}

func (l *List) hint() string {
	live, need := 0, 0
	for id, s := range l.all {
		if s.Live() {
			live++
		}
		if l.NeedsOperator(id) {
			need++
		}
	}
	h := strconv.Itoa(live) + " live"
	if need > 0 {
		h += " · " + strconv.Itoa(need) + " need you"
	}
	return h
}

// forkMark leads a fork's title in the list.
const forkMark = "↳ "

// row draws a session's row, indent columns in (a run's session sits
// under its group).
func (l *List) row(id string, indent int) string {
	s := l.all[id]
	b := badge.Of(s, l.waits[id], l.now)
	mark := " "
	switch l.marks[id] {
	case MarkNeedsYou:
		mark = l.st.Warning.Render("●")
	case MarkDone:
		mark = l.st.Success.Render("•")
	}
	tone := l.st.Tone(b.Tone)
	word := b.Word
	title := s.Title
	if s.ForkOf != "" {
		// A fork says so: its transcript begins with another session's.
		title = forkMark + title
	}
	w := l.w - indent
	room := w - 4 - ansi.StringWidth(word)
	if room < 4 {
		word, room = "", w-3
	}
	title = ansi.Truncate(title, room, "…")
	gap := max(w-3-ansi.StringWidth(title)-ansi.StringWidth(word), 1)
	pad := strings.Repeat(" ", indent)
	line := pad + mark + tone.Render(b.Icon) + " " + title + strings.Repeat(" ", gap) + tone.Render(word)
	if id == l.sel {
		plain := pad + mark + b.Icon + " " + title + strings.Repeat(" ", gap) + word
		if l.focused {
			return l.st.Selected.Render(plain)
		}
		return l.st.SelectedBlurred.Render(plain)
	}
	return line
}

// SetStyles changes the styles (the theme changed).
func (l *List) SetStyles(st themes.Styles) { l.st = st; l.input.SetStyles(st) }
