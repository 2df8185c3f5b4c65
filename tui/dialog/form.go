package dialog

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/input"
	"github.com/atelier-studio/atelier/tui/keys"
)

// field is one row of the form: a text line or a choice.
type field struct {
	label   string
	line    *input.Line // text fields
	choices []string    // choice fields
	pick    int
	hint    string
	touched bool // the operator changed the choice
}

func (f *field) value() string {
	if f.line != nil {
		return strings.TrimSpace(f.line.Value())
	}
	return f.choices[f.pick]
}

// Form is the new-session form: title and task first, then the settings.
// Tab and the arrows move between fields, left and right (or space) change
// a choice, enter starts the session, esc dismisses.
type Form struct {
	keys   KeyMap // the studio\'s (SetKeyMap), else the defaults
	st     themes.Styles
	fields []*field
	at     int
	err    string
	now    func() time.Time
	// isolation is what a create does for an agent when the form names
	// no isolation (SetIsolation); join are the instances it may join.
	isolation func(agent string) string
	join      []Joinable
}

// Joinable is an instance a new session may join.
type Joinable struct{ ID, Kind string }

// Field indexes.
const (
	fTitle = iota
	fTask
	fAgent
	fMode
	fAccess
	fIsolation
	fApproval
	fExecution
	fImage
	fStart
)

// NewForm returns the form; agents are the names to choose from (the
// first is the default), now the clock "start at" is read against.
func NewForm(st themes.Styles, agents []string, now func() time.Time) *Form {
	if len(agents) == 0 {
		agents = []string{"demo"}
	}
	text := func(label, placeholder, hint string) *field {
		l := input.New(st, "")
		l.Placeholder = placeholder
		return &field{label: label, line: l, hint: hint}
	}
	f := &Form{keys: DefaultKeyMap(), st: st, now: now}
	f.fields = []*field{
		text("Title", "defaults to the task's first line", ""),
		text("Task", "what the agent should do", ""),
		{label: "Agent", choices: agents},
		{label: "Mode", choices: []string{string(sess.OneShot), string(sess.Continuous)},
			hint: "one-shot ends when done; continuous waits for more"},
		{label: "Access", choices: []string{string(sess.ReadWrite), string(sess.ReadOnly)}},
		{label: "Isolation", choices: isolations,
			hint: "in-place edits the workspace; worktree and copy work apart until you apply (the Workspaces tab, W)"},
		{label: "Approval", choices: []string{"agent's default", core.PolicyAsk, core.PolicyAuto, core.PolicyReadOnly}},
		{label: "Execution", choices: []string{"local", "docker"}},
		text("Image", "with docker: the image, e.g. golang:1.26", ""),
		text("Start", "now", "now · later (start it yourself) · +10m · 15:04 · 2026-01-02T15:04"),
	}
	f.fields[fTitle].line.Focus()
	return f
}

// isolations are the isolation field's own choices; joining an instance
// follows them.
var isolations = []string{core.IsolationInPlace, core.IsolationWorktree, core.IsolationCopy}

// SetIsolation gives the isolation field what a create would do for each
// agent when the form names none (its configured isolation; nil or ""
// is in-place), shown as the field's default until the operator changes
// it, and the instances a session may join instead of getting its own.
func (f *Form) SetIsolation(def func(agent string) string, join []Joinable) {
	f.isolation, f.join = def, join
	fd := f.fields[fIsolation]
	fd.choices = isolations[:len(isolations):len(isolations)]
	for _, j := range join {
		fd.choices = append(fd.choices, "join "+j.ID+" ("+j.Kind+")")
	}
	f.followAgent()
}

// followAgent sets the isolation field to the chosen agent's default
// while the operator has not changed it.
func (f *Form) followAgent() {
	fd := f.fields[fIsolation]
	if fd.touched {
		return
	}
	def := core.IsolationInPlace
	if f.isolation != nil {
		if d := f.isolation(f.fields[fAgent].value()); d != "" {
			def = d
		}
	}
	for i, c := range isolations {
		if c == def {
			fd.pick = i
		}
	}
}

// HandleKey implements Dialog.
func (f *Form) HandleKey(msg tea.KeyPressMsg) Result {
	cur := f.fields[f.at]
	k := f.keys.Form
	switch {
	case key.Matches(msg, k.Cancel):
		return Result{Closed: true}
	case key.Matches(msg, k.Start):
		return f.submit()
	case key.Matches(msg, k.Next):
		f.move(1)
		return Result{}
	case key.Matches(msg, k.Prev):
		f.move(-1)
		return Result{}
	}
	if cur.line != nil {
		cur.line.Update(msg)
		f.err = ""
		return Result{}
	}
	switch {
	case key.Matches(msg, k.Choose):
		cur.pick = (cur.pick + 1) % len(cur.choices)
	case key.Matches(msg, k.Back):
		cur.pick = (cur.pick + len(cur.choices) - 1) % len(cur.choices)
	default:
		return Result{}
	}
	cur.touched = true
	if f.at == fAgent {
		f.followAgent()
	}
	return Result{}
}

func (f *Form) move(d int) {
	if l := f.fields[f.at].line; l != nil {
		l.Blur()
	}
	f.at = (f.at + d + len(f.fields)) % len(f.fields)
	if l := f.fields[f.at].line; l != nil {
		l.Focus()
	}
}

// Paste implements Dialog.
func (f *Form) Paste(msg tea.PasteMsg) {
	if l := f.fields[f.at].line; l != nil {
		l.Update(msg)
	}
}

func (f *Form) submit() Result {
	o := core.CreateOptions{
		Title:        f.fields[fTitle].value(),
		Instructions: f.fields[fTask].value(),
		Agent:        f.fields[fAgent].value(),
		Mode:         sess.Mode(f.fields[fMode].value()),
		Access:       sess.Access(f.fields[fAccess].value()),
		Execution:    f.fields[fExecution].value(),
		Image:        f.fields[fImage].value(),
		AutoStart:    true,
	}
	if f.fields[fApproval].pick > 0 {
		o.Approval = f.fields[fApproval].value()
	}
	// An isolation left as shown is the agent's configured one, named so
	// whoever creates the session does the same; with none configured the
	// engine decides (in place).
	switch iso := f.fields[fIsolation]; {
	case !iso.touched && f.isolation != nil:
		o.Isolation = f.isolation(o.Agent)
	case !iso.touched:
	case iso.pick >= len(isolations):
		o.Instance = f.join[iso.pick-len(isolations)].ID
	default:
		o.Isolation = iso.value()
	}
	if o.Title == "" && o.Instructions == "" {
		f.err = "give the session a title or a task"
		return Result{}
	}
	if o.Execution == "docker" && o.Image == "" {
		f.err = "docker execution needs an image"
		return Result{}
	}
	start, at, err := ParseStart(f.fields[fStart].value(), f.now())
	if err != nil {
		f.err = err.Error()
		return Result{}
	}
	o.AutoStart, o.StartAt = start, at
	return Result{Closed: true, OK: true, Create: o}
}

// ParseStart reads the form's start field: "" or "now" starts at once,
// "later" creates without starting, "+10m" starts after a delay, "15:04"
// at that time today (tomorrow when it has passed), and an RFC 3339 time
// (seconds optional) then.
func ParseStart(s string, now time.Time) (auto bool, at *time.Time, err error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "now":
		return true, nil, nil
	case "later", "manual", "no":
		return false, nil, nil
	}
	if strings.HasPrefix(s, "+") {
		d, err := time.ParseDuration(s[1:])
		if err != nil || d <= 0 {
			return false, nil, fmt.Errorf("start %q: say a positive delay such as +10m or +1h30m", s)
		}
		t := now.Add(d)
		return false, &t, nil
	}
	if t, err := time.ParseInLocation("15:04", s, now.Location()); err == nil {
		at := time.Date(now.Year(), now.Month(), now.Day(), t.Hour(), t.Minute(), 0, 0, now.Location())
		if !at.After(now) {
			at = at.AddDate(0, 0, 1)
		}
		return false, &at, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			if !t.After(now) {
				return false, nil, fmt.Errorf("start %q is in the past", s)
			}
			return false, &t, nil
		}
	}
	return false, nil, fmt.Errorf("start %q: say now, later, +10m, 15:04 or 2026-01-02T15:04", s)
}

// View implements Dialog.
func (f *Form) View(width, height int) string {
	w := min(width-4, 76)
	lw := 10
	var lines []string
	for i, fd := range f.fields {
		label := fmt.Sprintf("%-*s", lw, fd.label)
		if i == f.at {
			label = f.st.Accent.Render(label)
		} else {
			label = f.st.Subtle.Render(label)
		}
		var val string
		if fd.line != nil {
			fd.line.SetWidth(w - lw - 5)
			val = fd.line.View()
		} else {
			val = f.choiceView(fd, i == f.at)
		}
		lines = append(lines, label+val)
		if i == f.at && fd.hint != "" {
			lines = append(lines, strings.Repeat(" ", lw)+f.st.Hint.Render(fd.hint))
		}
	}
	lines = append(lines, "")
	if f.err != "" {
		lines = append(lines, f.st.Error.Render(f.err))
	}
	k := f.keys.Form
	lines = append(lines, f.st.Key.Render(hint(k.Start, 1))+" "+f.st.Hint.Render("start")+"  "+
		f.st.Key.Render(hint(k.Next, 1))+" "+f.st.Hint.Render("next field")+"  "+
		f.st.Key.Render(keys.Label([]string{k.Back.Keys()[0], k.Choose.Keys()[0]}))+" "+f.st.Hint.Render("choose")+"  "+
		f.st.Key.Render(hint(k.Cancel, 1))+" "+f.st.Hint.Render("cancel"))
	return box(f.st, "New session", lines, w, width, height)
}

func (f *Form) choiceView(fd *field, active bool) string {
	var parts []string
	for j, c := range fd.choices {
		switch {
		case j == fd.pick && active:
			parts = append(parts, f.st.Selected.Render(" "+c+" "))
		case j == fd.pick:
			parts = append(parts, f.st.Bold.Render("["+c+"]"))
		default:
			parts = append(parts, f.st.Subtle.Render(" "+c+" "))
		}
	}
	return strings.Join(parts, "")
}

// SetKeyMap gives the dialog the studio's keys.
func (d *Form) SetKeyMap(km KeyMap) { d.keys = km }
