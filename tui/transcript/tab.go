package transcript

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
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

// SetQueue replaces the pending inputs; the selection follows the input
// it was on when it is still there.
func (t *Tab) SetQueue(q []sess.Control) {
	var sel string
	if t.qsel < len(t.queue) {
		sel = t.queue[t.qsel].ID
	}
	t.queue = q
	t.qsel = min(t.qsel, max(len(q)-1, 0))
	for i, c := range q {
		if c.ID == sel {
			t.qsel = i
		}
	}
	if t.edit != "" && t.queuedAt(t.edit) < 0 {
		t.edit, t.lost = "", true
	}
}

// queuedAt returns the position of a queued input, -1 when it is not
// queued.
func (t *Tab) queuedAt(id string) int {
	for i, c := range t.queue {
		if c.ID == id {
			return i
		}
	}
	return -1
}

// Editing returns the id of the queued input the line edits, "" when none.
func (t *Tab) Editing() string { return t.edit }

// startEdit puts queued input i in the input line to edit it in place;
// only prompts and steers have text to edit.
func (t *Tab) startEdit(i int) {
	if i < 0 || i >= len(t.queue) || t.queue[i].Kind != sess.CtlPrompt && t.queue[i].Kind != sess.CtlSteer {
		return
	}
	c := t.queue[i]
	t.wasOpen, t.typing, t.lost = t.typing, true, false
	t.qsel, t.edit = i, c.ID
	if t.draft == "" {
		t.draft = t.in.Value()
	}
	t.in.SetValue(c.Text)
	t.editFrom = t.in.Value()
	t.in.Focus()
}

// endEdit leaves an edit: the line holds its draft again, and closes when
// it was closed before.
func (t *Tab) endEdit() {
	t.edit, t.editFrom = "", ""
	t.freeLine()
	if !t.wasOpen {
		t.typing = false
		t.in.Blur()
	}
}

// freeLine empties the line after its text went, or puts back the draft
// an edit set aside.
func (t *Tab) freeLine() {
	t.in.Reset()
	if t.draft != "" {
		t.in.SetValue(t.draft)
		t.draft = ""
	}
}

// Unedited puts back in the input line the text of an edit the engine
// refused (the input left the queue meanwhile), to send as a new input.
func (t *Tab) Unedited(text string) {
	if t.in.Value() != "" {
		t.draft = t.in.Value()
	}
	t.in.SetValue(text)
	t.lost = true
}

// QueueSelection returns the index of the selected queued input.
func (t *Tab) QueueSelection() int { return t.qsel }

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

func (t *Tab) queueLines() []string {
	if len(t.queue) == 0 {
		return nil
	}
	out := []string{t.st.Subtle.Render("queued (" + strconv.Itoa(len(t.queue)) + "; { } select, K J move, e edits, u removes):")}
	from := min(max(t.qsel-1, 0), max(len(t.queue)-3, 0))
	for i := from; i < len(t.queue) && i < from+3; i++ {
		c := t.queue[i]
		mark := "  "
		switch {
		case c.ID == t.edit:
			mark = "✎ "
		case i == t.qsel:
			mark = "› "
		}
		out = append(out, t.st.Warning.Render(mark+strconv.Itoa(i+1)+". "+string(c.Kind)+": ")+oneLine(c.Text))
	}
	if rest := len(t.queue) - from - 3; rest > 0 {
		out = append(out, t.st.Subtle.Render("  … "+strconv.Itoa(rest)+" more"))
	}
	return out
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

// Wants returns what the tab needs loaded for what it shows (the files of
// history commits scrolled near), nil when nothing.
func (t *Tab) Wants() Action {
	if t.showHist {
		return t.hist.Wants()
	}
	return nil
}

// HandleKey acts on a key and returns what the root should do.
func (t *Tab) HandleKey(msg tea.KeyPressMsg) Action {
	if t.typing {
		return t.typeKey(msg)
	}
	if t.showHist {
		if key.Matches(msg, t.hist.KeyMap().Back) {
			t.showHist = false
			return nil
		}
		if act, ok := t.hist.HandleKey(msg); ok {
			return act
		}
	}
	if act := t.respond(msg); act != nil {
		return act
	}
	k, id := t.keys, t.rec.ID
	switch {
	case key.Matches(msg, k.History):
		t.showHist = !t.showHist
		if t.showHist {
			return LoadHistory{ID: id}
		}
	case key.Matches(msg, k.Terminal):
		return Terminal{ID: id, Title: t.rec.Title}
	case key.Matches(msg, k.Older):
		if t.more && !t.fetching {
			t.fetching = true
			return LoadAll{ID: id}
		}
	case key.Matches(msg, k.Input):
		if t.rec.Status != sess.Ended {
			t.typing = true
			t.in.Focus()
		}
	case key.Matches(msg, k.Pause):
		return Control{id, core.ActPause}
	case key.Matches(msg, k.Resume):
		if t.rec.Status == sess.Created {
			return Control{id, core.ActStart}
		}
		return Control{id, core.ActResume}
	case key.Matches(msg, k.Stop):
		return Control{id, core.ActStop}
	case key.Matches(msg, k.Interrupt):
		// esc is also the key people press to back out of things: it
		// stops only a turn that runs, and is nothing otherwise.
		if core.Allowed(t.rec.Status, core.ActStop) {
			return Control{id, core.ActStop}
		}
	case key.Matches(msg, k.Cancel):
		return Control{id, core.ActCancel}
	case key.Matches(msg, k.Close):
		return Control{id, core.ActClose}
	case key.Matches(msg, k.Nudge):
		return Control{id, core.ActNudge}
	case key.Matches(msg, k.Compact):
		return Compact{ID: id}
	case key.Matches(msg, k.Fork):
		upTo, _ := t.tr.SelectedMessage()
		return Fork{ID: id, UpTo: upTo, Title: t.rec.Title}
	case key.Matches(msg, k.Unqueue):
		if n := len(t.queue); n > 0 {
			return Unqueue{ID: id, ControlID: t.queue[min(t.qsel, n-1)].ID}
		}
	case key.Matches(msg, k.QueueEdit):
		if t.rec.Status != sess.Ended {
			t.startEdit(min(t.qsel, len(t.queue)-1))
		}
	case key.Matches(msg, k.QueuePrev):
		t.qsel = max(t.qsel-1, 0)
	case key.Matches(msg, k.QueueNext):
		t.qsel = min(t.qsel+1, max(len(t.queue)-1, 0))
	case key.Matches(msg, k.QueueUp), key.Matches(msg, k.QueueDown):
		d := 1
		if key.Matches(msg, k.QueueUp) {
			d = -1
		}
		if to := t.qsel + d; t.qsel < len(t.queue) && to >= 0 && to < len(t.queue) {
			// The selection follows the input when the new queue arrives.
			c := t.queue[t.qsel].ID
			return MoveQueued{ID: id, ControlID: c, To: to}
		}
	case key.Matches(msg, k.Grants):
		return Grants{ID: id, Title: t.rec.Title}
	default:
		if !t.showHist {
			t.navigate(msg)
		}
	}
	return nil
}

func (t *Tab) navigate(msg tea.KeyPressMsg) {
	k := t.keys
	switch {
	case key.Matches(msg, k.Up):
		t.tr.ScrollBy(-1)
	case key.Matches(msg, k.Down):
		t.tr.ScrollBy(1)
	case key.Matches(msg, k.PageUp):
		t.tr.Page(-1)
	case key.Matches(msg, k.PageDown):
		t.tr.Page(1)
	case key.Matches(msg, k.Top):
		t.tr.Top()
	case key.Matches(msg, k.Bottom):
		t.tr.Bottom()
		t.tr.ClearSelection()
	case key.Matches(msg, k.Prev):
		t.tr.SelectStep(-1)
	case key.Matches(msg, k.Next):
		t.tr.SelectStep(1)
	case key.Matches(msg, k.Toggle):
		t.tr.Toggle()
	}
}

func (t *Tab) typeKey(msg tea.KeyPressMsg) Action {
	if t.edit != "" {
		return t.editKey(msg)
	}
	if t.newline(msg) {
		return nil
	}
	switch msg.String() {
	case "esc":
		t.typing, t.lost = false, false
		t.in.Blur()
		return nil
	case "up":
		if t.in.Value() == "" {
			// As in Codex and Claude Code: up in an empty line takes the
			// last queued prompt back to edit it.
			for i := len(t.queue) - 1; i >= 0; i-- {
				if k := t.queue[i].Kind; k == sess.CtlPrompt || k == sess.CtlSteer {
					t.startEdit(i)
					break
				}
			}
			return nil
		}
	case "enter", "tab":
		text := strings.TrimSpace(t.in.Value())
		if text == "" {
			return nil
		}
		t.lost = false
		t.freeLine()
		// While the session runs, enter steers the turn and tab queues
		// the text as its next prompt, as Codex does.
		steer := (t.rec.Status == sess.Running || t.rec.Status == sess.Paused) && msg.String() == "enter"
		return Input{ID: t.rec.ID, Text: text, Steer: steer}
	}
	t.in.Update(msg)
	return nil
}

// newlineKeys break the prompt's line where the cursor is: shift+enter
// where the terminal tells it from enter, alt+enter and ctrl+j where it
// does not ("\" then enter works in any terminal: see newline).
var newlineKeys = []string{"shift+enter", "alt+enter", "ctrl+j"}

// newline breaks the input line for a newline key, or for enter right
// after a backslash (which the break replaces), and reports whether it
// did.
func (t *Tab) newline(msg tea.KeyPressMsg) bool {
	k := msg.String()
	if slices.Contains(newlineKeys, k) {
		t.in.Newline()
		return true
	}
	return k == "enter" && t.in.Continue()
}

// editKey is typeKey while the line edits a queued input: enter (or tab)
// saves it in its place, esc leaves it as it was.
func (t *Tab) editKey(msg tea.KeyPressMsg) Action {
	if t.newline(msg) {
		return nil
	}
	switch msg.String() {
	case "esc":
		t.endEdit()
		return nil
	case "enter", "tab":
		text := strings.TrimSpace(t.in.Value())
		if text == "" {
			return nil
		}
		id, same := t.edit, t.in.Value() == t.editFrom
		t.endEdit()
		if same {
			return nil
		}
		return EditQueued{ID: t.rec.ID, ControlID: id, Text: text}
	}
	t.in.Update(msg)
	return nil
}

// Paste types pasted text into the input line when it is open.
func (t *Tab) Paste(msg tea.PasteMsg) {
	if t.typing {
		t.in.Update(msg)
	}
}

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
