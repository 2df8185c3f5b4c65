package workspaces

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/instances"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/badge"
	"github.com/atelier-studio/atelier/tui/keys"
)

// Pane is the Workspaces tab. Its rows are the workspace folder, then
// each instance; the selection stays on the same instance when the data
// changes under it.
type Pane struct {
	st      themes.Styles
	keys    KeyMap
	data    Data
	sel     int // 0: the folder; i: Instances[i-1]
	off     int // the first line shown
	w, h    int
	focused bool
	now     time.Time
	// showing is the instance the file pane shows ("" the folder): its
	// row says so.
	showing string
}

// New returns the tab's pane, empty until SetData.
func New(st themes.Styles) *Pane { return &Pane{st: st, keys: DefaultKeyMap()} }

// KeyMap returns the pane's keys.
func (p *Pane) KeyMap() KeyMap { return p.keys }

// SetKeyMap replaces the pane's keys (the configuration's overrides).
func (p *Pane) SetKeyMap(k KeyMap) { p.keys = k }

// SetStyles replaces the styles (a theme change).
func (p *Pane) SetStyles(st themes.Styles) { p.st = st }

// SetSize sets the inside size.
func (p *Pane) SetSize(w, h int) { p.w, p.h = w, h; p.clamp() }

// Focus gives the pane the keys.
func (p *Pane) Focus() { p.focused = true }

// Blur takes them away.
func (p *Pane) Blur() { p.focused = false }

// SetNow sets the clock the sessions' badges are drawn against.
func (p *Pane) SetNow(t time.Time) { p.now = t }

// SetShowing says which instance the file pane shows ("" the folder).
func (p *Pane) SetShowing(id string) { p.showing = id }

// Data returns what the pane shows.
func (p *Pane) Data() Data { return p.data }

// SetData replaces what the pane shows, keeping the selection on the same
// instance when it is still there.
func (p *Pane) SetData(d Data) {
	id, had := p.Selected()
	p.data = d
	p.sel = 0
	if had {
		for i, in := range d.Instances {
			if in.ID == id {
				p.sel = i + 1
			}
		}
	}
	p.clamp()
}

// Selected returns the selected instance's id; false on the folder.
func (p *Pane) Selected() (string, bool) {
	if in, ok := p.selected(); ok {
		return in.ID, true
	}
	return "", false
}

func (p *Pane) selected() (Instance, bool) {
	if p.sel < 1 || p.sel > len(p.data.Instances) {
		return Instance{}, false
	}
	return p.data.Instances[p.sel-1], true
}

// Scroll moves the selection by n rows.
func (p *Pane) Scroll(n int) { p.sel += n; p.clamp() }

// Click selects the folder or the instance drawn on row (of the lines
// View returns).
func (p *Pane) Click(row int) {
	line := row - 2 + p.off // the head and a blank line come first
	if row < 2 || row >= p.h-1 {
		return
	}
	starts, lines := p.layoutLines()
	if line >= len(lines) {
		return
	}
	for i, s := range starts {
		if s <= line {
			p.sel = i
		}
	}
	p.clamp()
}

// HandleKey moves the selection or returns what a key asks for.
func (p *Pane) HandleKey(msg tea.KeyPressMsg) Action {
	k := p.keys
	switch {
	case key.Matches(msg, k.Up):
		p.Scroll(-1)
	case key.Matches(msg, k.Down):
		p.Scroll(1)
	case key.Matches(msg, k.Top):
		p.Scroll(-keys.Far)
	case key.Matches(msg, k.Bottom):
		p.Scroll(keys.Far)
	case key.Matches(msg, k.Refresh):
		return Refresh{}
	case key.Matches(msg, k.Files):
		id, _ := p.Selected()
		return Files{ID: id}
	case key.Matches(msg, k.Diff), key.Matches(msg, k.Apply), key.Matches(msg, k.Discard), key.Matches(msg, k.Branch):
		return p.onInstance(msg)
	}
	return nil
}

// onInstance is what the instance keys ask on the selected row.
func (p *Pane) onInstance(msg tea.KeyPressMsg) Action {
	k := p.keys
	in, ok := p.selected()
	if !ok {
		return Notice{Text: "the workspace folder is what instances apply to: select an instance (↓) to " + strings.Fields(verb(k, msg))[0] + " it"}
	}
	switch {
	case key.Matches(msg, k.Diff):
		return Diff{ID: in.ID}
	case key.Matches(msg, k.Apply):
		return Apply{ID: in.ID}
	case key.Matches(msg, k.Discard):
		return Discard{ID: in.ID}
	}
	if in.Kind != instances.Worktree {
		return Notice{Text: "instance " + in.ID + " is a " + string(in.Kind) + ": only a worktree instance can become a branch (apply it instead)"}
	}
	return Branch{ID: in.ID}
}

func verb(k KeyMap, msg tea.KeyPressMsg) string {
	switch {
	case key.Matches(msg, k.Diff):
		return "diff"
	case key.Matches(msg, k.Apply):
		return "apply"
	case key.Matches(msg, k.Discard):
		return "discard"
	}
	return "branch"
}

// clamp keeps the selection on a row and its header in view.
func (p *Pane) clamp() {
	p.sel = min(max(p.sel, 0), len(p.data.Instances))
	starts, _ := p.layoutLines()
	room := max(p.bodyHeight(), 1)
	top := starts[p.sel]
	switch {
	case top < p.off:
		p.off = top
	case top >= p.off+room:
		p.off = top - room + 1
	}
	p.off = max(p.off, 0)
}

// bodyHeight is the rows for the list: the head and the keys line aside.
func (p *Pane) bodyHeight() int { return p.h - 3 }

// View returns the inside lines: a head line, the folder and the
// instances, and the keys of the selected row at the foot.
func (p *Pane) View() []string {
	if p.h <= 0 || p.w <= 0 {
		return nil
	}
	out := []string{p.cut(p.head(), p.st.Subtle), ""}
	_, lines := p.layoutLines()
	room := max(p.bodyHeight(), 1)
	end := min(p.off+room, len(lines))
	out = append(out, lines[min(p.off, end):end]...)
	for len(out) < p.h-1 {
		out = append(out, "")
	}
	out = append(out, ansi.Truncate(p.hints(), p.w, "…"))
	return out[:min(len(out), p.h)]
}

// head sums up the instances.
func (p *Pane) head() string {
	d := p.data
	switch {
	case !d.Loaded:
		return "reading the instances…"
	case d.Err != "":
		return "the workspace folder only: " + d.Err
	case len(d.Instances) == 0:
		return "the workspace folder; no instances (a session made with isolation worktree or copy gets one)"
	}
	n := len(d.Instances)
	s := "the workspace folder and " + strconv.Itoa(n) + " instance"
	if n > 1 {
		s += "s"
	}
	unused := 0
	for _, in := range d.Instances {
		if in.Unused() {
			unused++
		}
	}
	if unused > 0 {
		s += " · " + strconv.Itoa(unused) + " unused"
	}
	return s
}

// layoutLines draws every row: starts[i] is the first line of row i.
func (p *Pane) layoutLines() (starts []int, lines []string) {
	starts = append(starts, 0)
	lines = append(lines, p.rowHead(0, p.folderHead()))
	lines = append(lines, p.sessionLines(p.data.Folder, "no session works in place")...)
	for i, in := range p.data.Instances {
		lines = append(lines, "")
		starts = append(starts, len(lines))
		lines = append(lines, p.rowHead(i+1, p.instanceHead(in)), p.instanceDetail(in))
		lines = append(lines, p.sessionLines(in.Sessions, "no session")...)
	}
	return starts, lines
}

// rowHead draws a row's first line, marked when selected.
func (p *Pane) rowHead(i int, text string) string {
	mark := "  "
	if i == p.sel {
		mark = "▸ "
	}
	line := ansi.Truncate(mark+text, p.w, "…")
	if i != p.sel {
		return line
	}
	if p.focused {
		return p.st.Selected.Render(line)
	}
	return p.st.SelectedBlurred.Render(line)
}

func (p *Pane) folderHead() string {
	s := "the workspace folder · in place"
	if p.showing == "" {
		s += " · in the file pane"
	}
	return s
}

// instanceHead is an instance's first line: its id, kind, and what to
// know of it (unused, in the file pane, a branch of another name).
func (p *Pane) instanceHead(in Instance) string {
	parts := []string{in.ID, string(in.Kind)}
	if in.Unused() {
		parts = append(parts, "unused")
	}
	if p.showing == in.ID {
		parts = append(parts, "in the file pane")
	}
	if in.Branch != "" && in.Branch != instances.BranchPrefix+in.ID {
		parts = append(parts, "branch "+in.Branch)
	}
	return strings.Join(parts, " · ")
}

// instanceDetail is an instance's second line: its size on disk and its
// changes against its base.
func (p *Pane) instanceDetail(in Instance) string {
	switch {
	case in.Err != "":
		return p.cut("    not measured: "+in.Err, p.st.Error)
	case in.Summary == nil:
		return p.cut("    measuring…", p.st.Subtle)
	}
	return p.cut("    "+Bytes(in.Summary.Bytes)+" on disk · "+in.Summary.Changes()+" against its base", p.st.Subtle)
}

// sessionLines lists sessions with their badges, or says there are none.
func (p *Pane) sessionLines(ss []sess.Session, none string) []string {
	if len(ss) == 0 {
		return []string{p.cut("    "+none, p.st.Subtle)}
	}
	tw := 0
	for _, s := range ss {
		tw = max(tw, ansi.StringWidth(title(s)))
	}
	tw = min(tw, max(p.w/2, 10))
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		b := badge.Of(s, badge.Wait{}, p.now)
		t := ansi.Truncate(title(s), tw, "…")
		t += strings.Repeat(" ", tw-ansi.StringWidth(t))
		line := "    " + p.st.Tone(b.Tone).Render(b.Icon) + " " + t + "  " + p.st.Tone(b.Tone).Render(b.Word)
		out = append(out, ansi.Truncate(line, p.w, "…"))
	}
	return out
}

func title(s sess.Session) string {
	if s.Title != "" {
		return s.Title
	}
	return s.ID
}

// hints are the keys that act on the selected row.
func (p *Pane) hints() string {
	k := p.keys
	h := func(b key.Binding, what string) string {
		return p.st.Key.Render(b.Help().Key) + " " + p.st.Hint.Render(what)
	}
	in, ok := p.selected()
	if !ok {
		return h(k.Files, "the workspace's files") + p.st.Hint.Render(" · ") + h(k.Refresh, "refresh")
	}
	parts := []string{h(k.Diff, "diff"), h(k.Apply, "apply"), h(k.Files, "files"), h(k.Discard, "discard")}
	if in.Kind == instances.Worktree {
		parts = append(parts, h(k.Branch, "branch"))
	}
	parts = append(parts, h(k.Refresh, "refresh"))
	return strings.Join(parts, p.st.Hint.Render(" · "))
}

func (p *Pane) cut(s string, style interface{ Render(...string) string }) string {
	return style.Render(ansi.Truncate(s, p.w, "…"))
}
