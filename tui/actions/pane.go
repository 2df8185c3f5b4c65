package actions

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/badge"
	"github.com/atelier-studio/atelier/tui/diff"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Item is one thing waiting on the operator.
type Item struct {
	Session sess.Session
	// Interaction is the open approval, question, park or stuck report;
	// nil for a WAITING session.
	Interaction *sess.Interaction
}

// Key identifies an item across rebuilds.
func (it Item) Key() string {
	if it.Interaction != nil {
		return it.Interaction.ID
	}
	return "waiting:" + it.Session.ID
}

// Kind is the interaction's kind, or "waiting".
func (it Item) Kind() string {
	if it.Interaction != nil {
		return string(it.Interaction.Kind)
	}
	return "waiting"
}

// Since is when the item started waiting.
func (it Item) Since() time.Time {
	if it.Interaction != nil {
		return it.Interaction.Time
	}
	return it.Session.UpdatedAt
}

// Pane is the Action required pane.
type Pane struct {
	keys    KeyMap
	st      themes.Styles
	items   []Item
	sel     int
	off     int // first shown item
	w, h    int
	focused bool
	now     time.Time
	// follow is the session whose item the selection was on when that
	// item went (answered): its next item takes the selection back when
	// it comes, unless the operator moved the selection meanwhile.
	follow string
}

// New returns an empty pane.
func New(st themes.Styles) *Pane { return &Pane{keys: DefaultKeyMap(), st: st} }

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

// SetNow sets the clock for countdowns.
func (p *Pane) SetNow(now time.Time) { p.now = now }

// Items returns the items shown.
func (p *Pane) Items() []Item { return p.items }

// Set replaces the items, keeping the selection on the same item when it
// is still there. When it went (it was answered), the selection moves to
// the same session's next item, or, while that session has none, to the
// item that took its place, and back to the session's next item when it
// comes: answering one approval never leaves the operator on another
// session's.
func (p *Pane) Set(items []Item) {
	keep, session := "", p.follow
	if p.sel < len(p.items) {
		keep = p.items[p.sel].Key()
		if session == "" {
			session = p.items[p.sel].Session.ID
		}
	}
	p.items = items
	found := false
	for i, it := range items {
		if it.Key() == keep {
			p.sel, found = i, true
		}
	}
	if !found || p.follow != "" {
		p.follow = session
		for i, it := range items {
			if it.Session.ID == session && session != "" {
				p.sel, p.follow = i, ""
				break
			}
		}
	}
	p.clamp()
}

// Selected returns the selected item.
func (p *Pane) Selected() (Item, bool) {
	if p.sel < len(p.items) {
		return p.items[p.sel], true
	}
	return Item{}, false
}

// Shown reports whether the item with key k is on screen.
func (p *Pane) Shown(k string) bool {
	used := 0
	for i := p.off; i < len(p.items) && used < p.h; i++ {
		n := len(p.render(p.items[i], i == p.sel))
		if p.items[i].Key() == k {
			return used+n <= p.h || used == 0
		}
		used += n
	}
	return false
}

func (p *Pane) clamp() {
	p.sel = min(max(p.sel, 0), max(len(p.items)-1, 0))
	if p.sel < p.off {
		p.off = p.sel
	}
	for p.off < p.sel && !p.fits() {
		p.off++
	}
}

// fits reports whether the selected item shows whole from off.
func (p *Pane) fits() bool {
	used := 0
	for i := p.off; i <= p.sel && i < len(p.items); i++ {
		used += len(p.render(p.items[i], i == p.sel))
	}
	return used <= p.h
}

// Scroll moves the selection by n items.
func (p *Pane) Scroll(n int) { p.sel += n; p.follow = ""; p.clamp() }

// Click selects the item drawn on an inside row.
func (p *Pane) Click(row int) {
	used := 0
	for i := p.off; i < len(p.items); i++ {
		used += len(p.render(p.items[i], i == p.sel))
		if row < used {
			p.sel, p.follow = i, ""
			p.clamp()
			return
		}
	}
}

// HandleKey acts on a key and returns what the root should do.
func (p *Pane) HandleKey(msg tea.KeyPressMsg) Action {
	k := p.keys
	switch {
	case key.Matches(msg, k.Up):
		p.Scroll(-1)
		return nil
	case key.Matches(msg, k.Down):
		p.Scroll(1)
		return nil
	case key.Matches(msg, k.Top):
		p.Scroll(-keys.Far)
		return nil
	case key.Matches(msg, k.Bottom):
		p.Scroll(keys.Far)
		return nil
	}
	it, ok := p.Selected()
	if !ok {
		return nil
	}
	return p.act(msg, it)
}

func (p *Pane) act(msg tea.KeyPressMsg, it Item) Action {
	k, s, in := p.keys, it.Session, it.Interaction
	if in != nil {
		if act := Respond(k, s, *in, msg); act != nil {
			return act
		}
	}
	switch it.Kind() {
	case string(sess.Question):
		if key.Matches(msg, k.TakeDefault) && in.Default != "" {
			return Answer{s.ID, s.Title, in.ID, in.Text, in.Choices, in.Default, true}
		}
	case string(sess.Park), string(sess.Stuck):
		if key.Matches(msg, k.Nudge) {
			return Control{s.ID, s.Title, "nudge"}
		}
	case "waiting":
		switch {
		case key.Matches(msg, k.Answer):
			return SendNext{s.ID, s.Title}
		case key.Matches(msg, k.Close) && s.Mode == sess.Continuous:
			return Control{s.ID, s.Title, "close"}
		}
	}
	if key.Matches(msg, k.Cancel) {
		return Control{s.ID, s.Title, "cancel"}
	}
	return nil
}

// Respond is what a key does to an approval or a question, wherever it is
// shown (this pane, the card at the foot of a session's tab): allow once,
// allow for the session, deny, deny with a message, view the diff, or
// answer. It is nil for any other key or interaction.
func Respond(k KeyMap, s sess.Session, in sess.Interaction, msg tea.KeyPressMsg) Action {
	switch in.Kind {
	case sess.Approval:
		switch {
		case key.Matches(msg, k.AllowOnce):
			return Decide{s.ID, s.Title, in.ID, sess.AllowOnce, false, subject(&in)}
		case key.Matches(msg, k.AllowSession):
			return Decide{s.ID, s.Title, in.ID, sess.AllowSession, false, subject(&in)}
		case key.Matches(msg, k.AllowPrefix) && in.Command != "" && !in.Protected:
			return AllowPrefix{s.ID, s.Title, in.ID, in.Tool, in.Command}
		case key.Matches(msg, k.AlwaysHere) && !in.Protected:
			subj := in.Command
			if subj == "" {
				subj = in.Path
			}
			if subj != "" {
				return AlwaysHere{s.ID, s.Title, in.ID, in.Tool, subj}
			}
		case key.Matches(msg, k.Deny):
			return Decide{s.ID, s.Title, in.ID, sess.Deny, false, subject(&in)}
		case key.Matches(msg, k.DenyMessage):
			return Decide{s.ID, s.Title, in.ID, sess.Deny, true, subject(&in)}
		case key.Matches(msg, k.ViewDiff) && in.Diff != "":
			return ViewDiff{s.ID, s.Title, in.Path, in.Diff}
		}
	case sess.Question:
		if key.Matches(msg, k.Answer) {
			return Answer{s.ID, s.Title, in.ID, in.Text, in.Choices, in.Default, false}
		}
		if c, ok := choiceKey(in.Choices, msg); ok {
			return Answer{s.ID, s.Title, in.ID, in.Text, in.Choices, c, true}
		}
	}
	return nil
}

// choiceKey is the choice a digit key picks: 1 the first, up to 9.
func choiceKey(choices []string, msg tea.KeyPressMsg) (string, bool) {
	s := msg.String()
	if len(s) != 1 || s[0] < '1' || s[0] > '9' {
		return "", false
	}
	n := int(s[0] - '1')
	if n >= len(choices) {
		return "", false
	}
	return choices[n], true
}

// Choices names a question's choices with the digit that picks each (the
// first nine): "1 yes · 2 no".
func Choices(choices []string) string {
	parts := make([]string, len(choices))
	for i, c := range choices {
		if i < 9 {
			parts[i] = strconv.Itoa(i+1) + " " + c
		} else {
			parts[i] = c
		}
	}
	return strings.Join(parts, " · ")
}

// Subject is what an approval asks to do: "exec `ls -la`", "write_file
// main.go".
func Subject(in sess.Interaction) string { return subject(&in) }

func subject(in *sess.Interaction) string {
	switch {
	case in.Command != "":
		return in.Tool + " `" + in.Command + "`"
	case in.Path != "":
		return in.Tool + " " + in.Path
	}
	return in.Tool
}

// Count is shown in the pane's title.
func (p *Pane) Count() int { return len(p.items) }

// View returns the inside lines.
func (p *Pane) View() []string {
	if len(p.items) == 0 {
		return []string{p.st.Subtle.Render("Nothing waits on you.")}
	}
	out := make([]string, 0, p.h)
	for i := p.off; i < len(p.items) && len(out) < p.h; i++ {
		out = append(out, p.render(p.items[i], i == p.sel)...)
	}
	if len(out) > p.h {
		out = out[:p.h]
	}
	return out
}

// render draws one item: a title line, what it is about, and (when
// selected) the keys that answer it.
func (p *Pane) render(it Item, selected bool) []string {
	w := max(p.w-2, 1)
	var icon, head string
	var body []string
	var hints [][2]string
	in := it.Interaction
	switch it.Kind() {
	case string(sess.Approval):
		icon, head = "▲", it.Session.Title+" · "+in.Tool
		body = p.approvalBody(in, w)
		hints = [][2]string{{"a", "allow"}, {"A", "session"}, {"d", "deny"}, {"D", "deny+msg"}}
		if in.Diff != "" {
			hints = append(hints, [2]string{"v", "diff"})
		}
	case string(sess.Question):
		icon, head = "?", it.Session.Title+" asks"
		body = p.wrap(in.Text, w, p.st.Base)
		if len(in.Choices) > 0 {
			body = append(body, p.wrap("choices: "+Choices(in.Choices), w, p.st.Subtle)...)
		}
		hints = [][2]string{{"enter", "answer"}}
		if in.Default != "" {
			hints = append(hints, [2]string{"t", "take " + in.Default})
		}
	case string(sess.Park):
		icon, head = "◷", it.Session.Title+" parked"
		what := "on event " + in.Event
		if in.Deadline != nil {
			what = "on a timer: " + badge.Countdown(in.Deadline.Sub(p.now)) + " left"
		}
		body = []string{p.st.Subtle.Render(what)}
		hints = [][2]string{{"w", "nudge"}}
	case string(sess.Stuck):
		icon, head = "!", it.Session.Title+" looks stuck"
		body = p.wrap(in.Text, w, p.st.Subtle)
		hints = [][2]string{{"w", "nudge"}, {"x", "cancel"}}
	default:
		icon, head = "◆", it.Session.Title+" waits"
		body = []string{p.st.Subtle.Render(strings.TrimPrefix(badge.Detail(it.Session, badge.Wait{}, p.now), "WAITING · "))}
		hints = [][2]string{{"enter", "send"}}
		if it.Session.Mode == sess.Continuous {
			hints = append(hints, [2]string{"c", "close"})
		}
		hints = append(hints, [2]string{"x", "cancel"})
	}
	title := ansi.Truncate(icon+" "+head, p.w, "…")
	if selected && p.focused {
		title = p.st.Selected.Render(title)
	} else {
		title = p.st.Warning.Render(title)
	}
	out := []string{title}
	for _, b := range body {
		out = append(out, "  "+b)
	}
	if selected {
		var hs []string
		for _, h := range hints {
			hs = append(hs, p.st.Key.Render(h[0])+" "+p.st.Hint.Render(h[1]))
		}
		out = append(out, "  "+strings.Join(hs, " "))
	}
	return out
}

// approvalBody shows the command, or the path and the first lines of the
// diff, before anything else.
func (p *Pane) approvalBody(in *sess.Interaction, w int) []string {
	var out []string
	if in.Command != "" {
		out = append(out, p.wrap("$ "+in.Command, w, p.st.Accent)...)
	}
	if in.Path != "" {
		line := in.Path
		if in.Diff != "" {
			a, d := diff.Stat(in.Diff)
			line += " (+" + strconv.Itoa(a) + " -" + strconv.Itoa(d) + ")"
		}
		out = append(out, p.st.Accent.Render(ansi.Truncate(line, w, "…")))
	}
	if in.Diff != "" {
		lines := strings.Split(strings.TrimRight(in.Diff, "\n"), "\n")
		shown := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---") {
				continue
			}
			if shown == 5 {
				out = append(out, p.st.Subtle.Render("… v shows all"))
				break
			}
			out = append(out, diff.Line(p.st, ansi.Truncate(l, w, "…")))
			shown++
		}
	}
	if in.Reason != "" {
		out = append(out, p.wrap(in.Reason, w, p.st.Subtle)...)
	}
	return out
}

func (p *Pane) wrap(text string, w int, style interface{ Render(...string) string }) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	lines := strings.Split(ansi.Wrap(text, w, ""), "\n")
	if len(lines) > 4 {
		lines = append(lines[:3], "…")
	}
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return lines
}

// SetStyles changes the styles (the theme changed).
func (p *Pane) SetStyles(st themes.Styles) { p.st = st }
