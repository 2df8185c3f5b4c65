package transcript

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/actions"
	"github.com/atelier-studio/atelier/tui/badge"
	"github.com/atelier-studio/atelier/tui/input"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Tab is one session's tab: header, transcript, queue and input line.
type Tab struct {
	keys   KeyMap
	st     themes.Styles
	rec    sess.Session
	wait   badge.Wait
	tr     *Transcript
	queue  []sess.Control
	qsel   int // the selected queued input
	in     *input.Line
	typing bool
	// edit is the queued input the line edits in place ("" while it
	// writes a new one): editFrom is its text as it came into the line,
	// wasOpen whether the line was open before. draft is what the line
	// held when the edit began; it comes back once the line is free.
	// lost says the edited input left the queue (a turn took it): the
	// line keeps the text, to send as a new input.
	edit, editFrom, draft string
	wasOpen, lost         bool
	focused               bool
	w, h                  int
	now                   time.Time

	loaded  bool
	loadSeq uint64
	pending []core.Event
	loadErr string
	reload  bool // an event could not be placed: the root should reload
	// more: only the newest messages are loaded (a tail); fetching: the
	// whole transcript is on its way, so events are kept to replay on it.
	more, fetching bool
	olderErr       string // why loading the older messages failed

	hist     *History
	showHist bool

	// pending are the session's open approvals and questions, the card
	// answers the first with akeys (the Action required pane's keys).
	waits []sess.Interaction
	akeys actions.KeyMap

	// run is the workflow run the session is part of, drawn on one line
	// (SetRun): its status and steps; "" for a session of no run.
	run string

	// marks are the transcript's lines of the studio's own (a stop's
	// "interrupted"), kept to place them again after a reload.
	marks []mark

	// paths are the workspace's paths a mention completes (SetPaths);
	// sugg the ones matching the mention at the cursor, suggSel the one
	// selected; dismissed: esc closed the suggestions of the mention at
	// dismissedAt.
	paths       []string
	sugg        []string
	suggSel     int
	dismissed   bool
	dismissedAt int

	// isolation is the kind of instance the session works on ("worktree",
	// "copy"; SetIsolation), which its record does not say.
	isolation string
}

// SetIsolation names the kind of the instance the session works on, for
// its header ("" while the studio does not know it yet).
func (t *Tab) SetIsolation(kind string) { t.isolation = kind }

// SetRun shows the line of the workflow run the session belongs to above
// the transcript ("" for none).
func (t *Tab) SetRun(line string) { t.run = line }

// NewTab returns the tab of a session; its transcript shows once Loaded.
func NewTab(st themes.Styles, rec sess.Session) *Tab {
	t := &Tab{keys: DefaultKeyMap(), st: st, rec: rec, tr: New(st, rec.Agent), in: input.New(st, ""),
		hist: NewHistory(st, rec.ID, rec.Title), akeys: actions.DefaultKeyMap()}
	t.in.Placeholder = "type and press enter"
	t.in.Limit = 16_000
	t.in.Multi = true // a prompt has paragraphs, and a paste keeps its lines
	t.tr.SetFollowKeys(t.keys.Bottom.Help().Key)
	t.tr.SetStreaming(t.streams())
	return t
}

// ID returns the session's id.
func (t *Tab) ID() string { return t.rec.ID }

// Record returns the session record the tab shows.
func (t *Tab) Record() sess.Session { return t.rec }

// KeyMap returns the tab's keys.
func (t *Tab) KeyMap() KeyMap { return t.keys }

// Transcript returns the tab's transcript.
func (t *Tab) Transcript() *Transcript { return t.tr }

// SetRecord updates the session record.
func (t *Tab) SetRecord(rec sess.Session) {
	t.rec = rec
	t.hist.SetTitle(rec.Title)
	t.tr.SetStreaming(t.streams())
}

// streams reports whether the session's agent may be writing now: it
// runs, parked on nothing.
func (t *Tab) streams() bool {
	return t.rec.Status == sess.Running && t.rec.SubState != sess.Parked && t.wait.Kind == ""
}

// SetKeyMap replaces the tab's keys and its history's (the configuration's
// overrides).
func (t *Tab) SetKeyMap(k KeyMap, h HistoryKeyMap) {
	t.keys = k
	t.hist.SetKeyMap(h)
	t.tr.SetFollowKeys(k.Bottom.Help().Key)
}

// History returns the tab's turn history.
func (t *Tab) History() *History { return t.hist }

// ShowsHistory reports whether the tab shows its turn history instead of
// the transcript.
func (t *Tab) ShowsHistory() bool { return t.showHist }

// Scope returns the keys that act in the tab now: the history's while it
// shows, the tab's otherwise.
func (t *Tab) Scope() keys.Scope {
	if t.showHist {
		return t.hist.KeyMap().Scope()
	}
	s := t.keys.Scope()
	if it, ok := t.card(); ok {
		// The card's keys act here too while it shows.
		card := []key.Binding{t.akeys.Answer}
		if it.Kind == sess.Approval {
			card = []key.Binding{t.akeys.AllowOnce, t.akeys.AllowSession, t.akeys.Deny, t.akeys.DenyMessage, t.akeys.ViewDiff}
			if !it.Protected {
				card = append(card, t.akeys.AlwaysHere)
			}
			if it.Command != "" && !it.Protected {
				card = append(card, t.akeys.AllowPrefix)
			}
		}
		s.Bindings = append(card, s.Bindings...)
	}
	s.Short = t.shortKeys()
	return s
}

// shortKeys are the status line's hints for the session as it is: only
// the controls its status allows (no "p pause" on a CREATED session), the
// card's keys first while it waits on the operator.
func (t *Tab) shortKeys() []string {
	k := t.keys
	can := func(a core.Action) bool { return core.Allowed(t.rec.Status, a) }
	hk := func(b key.Binding) string { return b.Help().Key }
	var out []string
	if it, ok := t.card(); ok {
		if it.Kind == sess.Approval {
			out = append(out, hk(t.akeys.AllowOnce), hk(t.akeys.Deny))
		} else {
			out = append(out, hk(t.akeys.Answer))
		}
	}
	if t.rec.Status != sess.Ended {
		out = append(out, hk(k.Input))
	}
	if can(core.ActStart) || can(core.ActResume) {
		out = append(out, hk(k.Resume))
	}
	for _, c := range []struct {
		a core.Action
		b key.Binding
	}{{core.ActPause, k.Pause}, {core.ActStop, k.Stop}, {core.ActCancel, k.Cancel}} {
		if can(c.a) {
			out = append(out, hk(c.b))
		}
	}
	if t.rec.Status == sess.Ended {
		out = append(out, hk(k.Fork))
	}
	return append(out, hk(k.History))
}

// SetWait records what the session waits on.
func (t *Tab) SetWait(w badge.Wait) {
	t.wait = w
	t.tr.SetStreaming(t.streams())
}

// SetNow sets the clock for countdowns.
func (t *Tab) SetNow(now time.Time) { t.now = now }

// SetSize sets the tab's inside size.
func (t *Tab) SetSize(w, h int) {
	t.w, t.h = w, h
	t.in.SetWidth(w)
	t.layout()
}

// Focus gives the tab the keys.
func (t *Tab) Focus() { t.focused = true }

// Blur takes them away (and closes the input line).
// An edit in progress is left as it was.
func (t *Tab) Blur() {
	if t.edit != "" {
		t.wasOpen = false
		t.endEdit()
	}
	t.focused = false
	t.typing = false
	t.in.Blur()
}

// TakesText reports whether the input line is open.
func (t *Tab) TakesText() bool { return t.typing }

// Loaded gives the tab its whole transcript as of seq and applies the
// events that arrived meanwhile and are newer.
func (t *Tab) Loaded(msgs []sess.Message, seq uint64, err error) { t.LoadedTail(msgs, seq, false, err) }

// LoadedTail gives the tab the newest messages of its transcript as of
// seq; more says older ones exist (a row at the top offers to load them).
// Events that arrived meanwhile and are newer are applied on top.
func (t *Tab) LoadedTail(msgs []sess.Message, seq uint64, more bool, err error) {
	fetched := t.fetching
	t.fetching = false
	if err != nil && fetched && t.loaded {
		// The tail stays; the row at the top says why the rest did not come.
		t.olderErr, t.pending = err.Error(), nil
		return
	}
	if err != nil {
		t.loadErr = err.Error()
		return
	}
	t.olderErr = ""
	t.tr.Set(msgs)
	t.tr.Remark(t.marks)
	t.loaded, t.loadSeq, t.loadErr, t.reload, t.more = true, seq, "", false, more
	pending := t.pending
	t.pending = nil
	for _, ev := range pending {
		t.Apply(ev)
	}
}

// Interrupted marks in the transcript that the operator stopped the turn
// at: the engine keeps no message for it, and without one a stopped turn
// reads as one that finished.
func (t *Tab) Interrupted(at time.Time) {
	t.marks = append(t.marks, t.tr.Mark("interrupted", at))
}

// More reports whether older messages than those shown exist.
func (t *Tab) More() bool { return t.more }

// Apply takes a message or delta event of the session. It reports false
// when the transcript must be reloaded.
func (t *Tab) Apply(ev core.Event) bool {
	if !t.loaded {
		t.pending = append(t.pending, ev)
		return true
	}
	if ev.Seq != 0 && ev.Seq <= t.loadSeq {
		return true
	}
	if t.fetching {
		// The whole transcript replaces this one when it arrives; what
		// happens meanwhile is replayed on it.
		t.pending = append(t.pending, ev)
	}
	switch ev.Kind {
	case core.EvMessage:
		t.tr.Message(*ev.Message)
	case core.EvDelta:
		if !t.tr.Delta(*ev.Delta) {
			t.reload = true
			t.loaded = false
			return false
		}
	}
	return true
}

// Animated reports whether the tab shows something that changes by itself.
func (t *Tab) Animated() bool { return badge.Of(t.rec, t.wait, t.now).Animated }

func (t *Tab) headerLines() []string {
	b := badge.Of(t.rec, t.wait, t.now)
	tone := t.st.Tone(b.Tone)
	title := t.st.Bold.Render(t.rec.Title) + t.st.Subtle.Render(" · "+strings.Join(t.about(), " · "))
	out := []string{title, tone.Render(b.Icon + " " + badge.Detail(t.rec, t.wait, t.now))}
	if t.run != "" {
		out = append(out, ansi.Truncate(t.run, max(t.w, 1), "…"))
	}
	if c := t.controls(); c != "" {
		out = append(out, c)
	}
	if t.rec.Error != "" && !t.tr.HasError(t.rec.Error) {
		out = append(out, t.st.Error.Render("✗ "+t.rec.Error))
	}
	if t.loadErr != "" {
		out = append(out, t.st.Error.Render("transcript: "+t.loadErr))
	}
	return append(out, t.st.Subtle.Render(strings.Repeat("─", max(t.w, 0))))
}

// about is what the header says of the session after its title: its
// agent, mode and access, and where it works when that is not the
// workspace folder on this machine (its instance, its container), since
// what it changes and runs goes there instead.
func (t *Tab) about() []string {
	out := []string{t.rec.Agent, string(t.rec.Mode), string(t.rec.Access)}
	if t.rec.Instance != "" {
		kind := t.isolation
		if kind == "" {
			kind = "isolated"
		}
		out = append(out, kind) // its id is the Workspaces tab's to show
	}
	if x := t.rec.Execution; x != "" && x != "local" {
		if t.rec.Image != "" {
			x += " " + t.rec.Image
		}
		out = append(out, x)
	}
	return out
}

// controls lists the keys that apply in the session's status.
func (t *Tab) controls() string {
	type c struct {
		b  key.Binding
		ok bool
	}
	st := t.rec.Status
	can := func(a core.Action) bool { return core.Allowed(st, a) }
	list := []c{
		{t.keys.Input, t.rec.Status != sess.Ended},
		{t.keys.Pause, can(core.ActPause)},
		{t.keys.Resume, can(core.ActResume) || can(core.ActStart)},
		{t.keys.Stop, can(core.ActStop)},
		{t.keys.Cancel, can(core.ActCancel)},
		{t.keys.Close, can(core.ActClose) && t.rec.Mode == sess.Continuous},
		{t.keys.Nudge, t.wait.Kind == sess.Park},
	}
	var parts []string
	for _, x := range list {
		if x.ok {
			h := x.b.Help()
			desc := h.Desc
			if i := strings.IndexAny(desc, " :("); i > 0 {
				desc = desc[:i]
			}
			parts = append(parts, t.st.Key.Render(h.Key)+" "+t.st.Hint.Render(desc))
		}
	}
	return strings.Join(parts, t.st.Hint.Render(" · "))
}

func (t *Tab) inputLines() []string {
	if t.rec.Status == sess.Ended {
		return []string{t.st.Subtle.Render("The session has ended. f forks it to go on.")}
	}
	t.in.Prompt = "send › "
	running := t.rec.Status == sess.Running || t.rec.Status == sess.Paused
	if running {
		t.in.Prompt = "steer › "
	}
	var note []string
	if t.lost {
		note = []string{t.st.Warning.Render("The queued input left the queue before the edit was saved: enter sends this text as a new one.")}
	}
	if !t.typing {
		return append(note, t.st.Hint.Render(t.in.Prompt)+t.st.Subtle.Render("press enter to type"))
	}
	if i := t.queuedAt(t.edit); t.edit != "" && i >= 0 {
		t.in.Prompt = "edit " + strconv.Itoa(i+1) + " › "
		t.in.Placeholder = "enter saves it in its place · esc leaves it as it was"
		return t.in.ViewLines()
	}
	if running {
		t.in.Placeholder = "enter steers the turn · tab queues the next prompt"
	} else {
		t.in.Placeholder = "type and press enter"
	}
	note = append(note, t.mentionLines()...)
	return append(note, t.in.ViewLines()...)
}

// olderLines is the row at the top of a transcript opened with its tail.
func (t *Tab) olderLines() []string {
	switch {
	case t.showHist || !t.loaded || !t.more:
		return nil
	case t.fetching:
		return []string{t.st.Subtle.Render("⋯ loading the older messages…")}
	case t.olderErr != "":
		return []string{ansi.Truncate(t.st.Error.Render("older messages: "+t.olderErr+" · ")+t.st.Key.Render(t.keys.Older.Help().Key)+
			t.st.Subtle.Render(" tries again"), t.w, "…")}
	}
	k := t.keys.Older.Help().Key
	return []string{ansi.Truncate(t.st.Subtle.Render("⋯ older messages not loaded: press ")+t.st.Key.Render(k)+
		t.st.Subtle.Render(" to load all"), t.w, "…")}
}

func (t *Tab) layout() {
	fixed := len(t.headerLines()) + len(t.olderLines()) + len(t.cardLines()) + len(t.queueLines()) + len(t.inputLines())
	t.tr.SetSize(t.w, max(t.h-fixed, 0))
	t.hist.SetSize(t.w, max(t.h-fixed, 0))
}

// View returns the tab's inside lines.
func (t *Tab) View() []string {
	t.layout()
	out := t.headerLines()
	out = append(out, t.olderLines()...)
	switch {
	case t.showHist:
		out = append(out, t.hist.View()...)
	case t.loadErr != "":
	case !t.loaded:
		out = append(out, t.st.Subtle.Render("loading the transcript…"))
		for len(out) < t.h-len(t.cardLines())-len(t.queueLines())-1 {
			out = append(out, "")
		}
	default:
		body := t.tr.View()
		out = append(out, body...)
		for i := len(body); i < t.tr.h; i++ {
			out = append(out, "")
		}
	}
	out = append(out, t.cardLines()...)
	out = append(out, t.queueLines()...)
	return append(out, t.inputLines()...)
}

// Scroll moves the transcript by n lines, or the history's selection by n
// rows (the mouse wheel).
func (t *Tab) Scroll(n int) {
	if t.showHist {
		t.hist.Move(n)
		return
	}
	t.tr.ScrollBy(n)
}

// newlineKeys break the prompt's line where the cursor is: shift+enter
// where the terminal tells it from enter, alt+enter and ctrl+j where it
// does not ("\" then enter works in any terminal: see newline).
var newlineKeys = []string{"shift+enter", "alt+enter", "ctrl+j"}

// Label is the tab's label in the tab bar: the title and a dot in the
// badge's tone.
func (t *Tab) Label(width int) string {
	b := badge.Of(t.rec, t.wait, t.now)
	return ansi.Truncate(t.rec.Title, width, "…") + " " + t.st.Tone(b.Tone).Render(b.Icon)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	return ansi.Truncate(s, 200, "…")
}

// SetRaw shows the agent's answers as their Markdown source (copy mode)
// or drawn.
func (t *Tab) SetRaw(raw bool) { t.tr.SetRaw(raw) }

// SetStyles changes the styles (the theme changed).
func (t *Tab) SetStyles(st themes.Styles) {
	t.st = st
	t.tr.SetStyles(st)
	t.in.SetStyles(st)
	t.hist.SetStyles(st)
}
