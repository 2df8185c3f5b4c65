package transcript

import (
	"encoding/json"
	"strings"

	"github.com/charmbracelet/x/ansi"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/markdown"
)

// itemKind says what an item draws.
type itemKind uint8

const (
	headerItem itemKind = iota // a message's role line
	partItem                   // one part of a message
)

// item is one unit of rendering with its cached lines.
type item struct {
	kind     itemKind
	part     int
	version  int  // bumped when the content changes
	expanded bool // tool cards: show input and result

	lines  []string // cached rendering
	cacheW int
	cacheV int
	cached bool

	// md keeps an assistant text part's Markdown drawing block by block,
	// so a streamed delta draws only the open tail again.
	md markdown.Doc
}

func (it *item) touch() { it.version++ }

// entry is one message and its items.
type entry struct {
	msg   sess.Message
	items []*item
	// mark says the entry is the studio's own line (marks.go), text what
	// it says: it has no parts, only its header.
	mark bool
	text string
}

func newEntry(m sess.Message) *entry {
	e := &entry{msg: m}
	e.items = append(e.items, &item{kind: headerItem})
	for i := range m.Parts {
		e.items = append(e.items, &item{kind: partItem, part: i})
	}
	return e
}

// replace takes a newer revision, keeping the cache of unchanged parts.
func (e *entry) replace(m sess.Message) {
	old := e.msg
	e.msg = m
	if old.Complete != m.Complete || old.Role != m.Role {
		e.items[0].touch()
	}
	for i := range m.Parts {
		if i+1 < len(e.items) {
			if i >= len(old.Parts) || !samePart(old.Parts[i], m.Parts[i]) || old.Complete != m.Complete {
				e.items[i+1].touch()
			}
			continue
		}
		e.items = append(e.items, &item{kind: partItem, part: i})
	}
	e.items = e.items[:len(m.Parts)+1]
}

func samePart(a, b sess.Part) bool {
	if a.Type != b.Type || a.Text != b.Text || (a.Tool == nil) != (b.Tool == nil) {
		return false
	}
	return a.Tool == nil || *a.Tool == *b.Tool
}

// renderer draws items at a width.
type renderer struct {
	st      themes.Styles
	md      *markdown.Renderer // built from st
	raw     bool               // answers as their Markdown source (copy mode)
	agent   string
	renders int // items rendered, for tests and benchmarks
	// parked are the tool calls that wait on the operator, by call id,
	// and what for: their cards say so instead of "running".
	parked map[string]sess.InteractionKind
	// still says the session streams no output now (parked, paused,
	// between turns): an unfinished answer shows no cursor then.
	still bool
}

// lines returns an item's rendering, from the cache when still valid.
func (r *renderer) lines(e *entry, it *item, width int) []string {
	if it.cached && it.cacheW == width && it.cacheV == it.version {
		return it.lines
	}
	r.renders++
	it.lines = r.render(e, it, width)
	it.cacheW, it.cacheV, it.cached = width, it.version, true
	return it.lines
}

func (r *renderer) render(e *entry, it *item, width int) []string {
	m := e.msg
	if it.kind == headerItem {
		return r.header(e, width)
	}
	p := m.Parts[it.part]
	last := it.part == len(m.Parts)-1
	switch p.Type {
	case sess.ToolPart:
		return r.tool(p.Tool, it.expanded, width)
	case sess.ErrorPart:
		return r.wrap("✗ "+p.Text, width, r.st.Error)
	case sess.ReasoningPart:
		return r.wrap("thinking: "+p.Text, width, r.st.Reasoning)
	}
	streaming := last && !m.Complete && m.Role == sess.Assistant && !r.still
	// What a model wrote, its answers and a compaction's summary, is
	// Markdown; the operator's prompts and the engine's notices are not.
	if (m.Role == sess.Assistant || m.Role == sess.Summary) && !r.raw {
		lines := it.md.Lines(r.md, p.Text, width)
		if streaming {
			lines = r.cursor(lines, width)
		}
		return lines
	}
	text := p.Text
	if streaming {
		text += "▍"
	}
	switch m.Role {
	case sess.User:
		return r.wrap(text, width, r.st.Base)
	case sess.Notice, sess.Cleared:
		return r.wrap(text, width, r.st.Notice)
	}
	return r.wrap(text, width, r.st.Assistant)
}

// cursor marks where a streamed answer goes on: after its last line when
// that has room, else on a line of its own. lines is the item's own copy.
func (r *renderer) cursor(lines []string, width int) []string {
	c := r.st.Assistant.Render("▍")
	if n := len(lines); n > 0 && ansi.StringWidth(lines[n-1]) < width {
		lines[n-1] += c
		return lines
	}
	return append(lines, c)
}

func (r *renderer) header(e *entry, width int) []string {
	m := e.msg
	stamp := ""
	if !m.Time.IsZero() {
		stamp = m.Time.Local().Format("15:04:05")
	}
	var who string
	switch {
	case e.mark:
		who = r.st.Warning.Render("■ " + e.text)
	case m.Role == sess.User:
		who = r.st.User.Render("› you")
	case m.Role == sess.Notice:
		who = r.st.Notice.Render("! notice")
	case m.Role == sess.Cleared:
		who = r.st.Notice.Render("✂ cleared")
	default:
		name := r.agent
		if name == "" {
			name = "agent"
		}
		who = r.st.Bold.Render("◆ " + name)
	}
	line := who
	if stamp != "" {
		gap := width - ansi.StringWidth(who) - len(stamp)
		if gap >= 1 {
			line += strings.Repeat(" ", gap) + r.st.Subtle.Render(stamp)
		}
	}
	return []string{"", line}
}

// wrap breaks text to width and styles each line.
func (r *renderer) wrap(text string, width int, style interface{ Render(...string) string }) []string {
	text = strings.TrimRight(ansi.Strip(text), "\n")
	if text == "" {
		return nil
	}
	raw := strings.Split(ansi.Wrap(strings.ReplaceAll(text, "\t", "    "), max(width, 1), ""), "\n")
	out := make([]string, len(raw))
	for i, l := range raw {
		out[i] = style.Render(l)
	}
	return out
}

func (r *renderer) tool(t *sess.ToolCall, expanded bool, width int) []string {
	if t == nil {
		return nil
	}
	arrow := "▸"
	if expanded {
		arrow = "▾"
	}
	state, tone := toolState(t.State)
	if kind, ok := r.parked[t.ID]; ok && !t.State.Finished() {
		state, tone = parkedState(kind), themes.ToneWarning
	}
	head := r.st.ToolTitle.Render(arrow+" "+t.Name) + " " + r.st.Tone(tone).Render(state)
	sum := summary(t.Input)
	if sum != "" && !expanded {
		room := width - ansi.StringWidth(head) - 2
		if room > 3 {
			head += "  " + r.st.ToolBody.Render(ansi.Truncate(sum, room, "…"))
		}
	}
	out := []string{head}
	if !expanded {
		if t.State == sess.ToolInterrupted || t.State == sess.ToolError || t.State == sess.ToolDenied {
			out = append(out, r.wrap("  "+firstLine(t.Output), width, r.st.Tone(tone))...)
		}
		return out
	}
	out = append(out, r.st.Subtle.Render("  input"))
	out = append(out, r.indent(pretty(t.Input), width, r.st.ToolBody)...)
	if t.State.Finished() || t.Output != "" {
		out = append(out, r.st.Subtle.Render("  result"))
		out = append(out, r.indent(t.Output, width, r.st.Tone(tone))...)
	}
	return out
}

func (r *renderer) indent(text string, width int, style interface{ Render(...string) string }) []string {
	lines := r.wrap(text, max(width-4, 1), style)
	for i := range lines {
		lines[i] = "    " + lines[i]
	}
	return lines
}

func toolState(s sess.ToolState) (string, themes.Tone) {
	switch s {
	case sess.ToolDone:
		return "✓ done", themes.ToneSuccess
	case sess.ToolError:
		return "✗ error", themes.ToneError
	case sess.ToolDenied:
		return "⊘ denied", themes.ToneError
	case sess.ToolInterrupted:
		return "⚠ interrupted", themes.ToneWarning
	case sess.ToolRunning:
		return "… running", themes.ToneAccent
	}
	return "… pending", themes.ToneSubtle
}

// parkedState is what a tool card says while its call waits on the
// operator.
func parkedState(k sess.InteractionKind) string {
	switch k {
	case sess.Approval:
		return "⚠ waiting for approval"
	case sess.Question:
		return "? waiting for an answer"
	}
	return "… waiting"
}

// summary picks the one field of a tool's input a reader wants first.
func summary(input string) string {
	var m map[string]any
	if json.Unmarshal([]byte(input), &m) != nil {
		return firstLine(input)
	}
	for _, k := range []string{"command", "path", "question", "pattern", "query", "seconds", "event"} {
		if v, ok := m[k]; ok {
			b, _ := json.Marshal(v)
			s := string(b)
			if str, ok := v.(string); ok {
				s = str
			}
			return firstLine(s)
		}
	}
	return firstLine(input)
}

func pretty(input string) string {
	var v any
	if json.Unmarshal([]byte(input), &v) != nil {
		return input
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return input
	}
	return string(b)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
