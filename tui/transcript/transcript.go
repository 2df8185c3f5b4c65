package transcript

import (
	"strings"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/markdown"
)

// ref names an item: message m, item i of it.
type ref struct{ m, i int }

// Transcript is the virtualized message list of one session.
type Transcript struct {
	r       renderer
	entries []*entry
	byID    map[string]int
	w, h    int

	follow bool // stick to the newest line
	top    ref  // first shown item when not following
	topOff int  // first shown line of that item

	sel    ref
	hasSel bool

	below below // what arrived under the view scrolled up (below.go)
}

// New returns an empty transcript that follows its newest line.
func New(st themes.Styles, agent string) *Transcript {
	return &Transcript{r: renderer{st: st, md: markdown.NewRenderer(st), agent: agent}, byID: map[string]int{}, follow: true}
}

// SetSize sets the drawn size; items re-render lazily at a new width.
func (t *Transcript) SetSize(w, h int) { t.w, t.h = max(w, 1), max(h, 0) }

// SetParked says which tool calls wait on the operator (call id → what
// for): their cards read "waiting for approval" instead of "running". The
// cards whose state changed are drawn again.
func (t *Transcript) SetParked(parked map[string]sess.InteractionKind) {
	old := t.r.parked
	t.r.parked = parked
	for _, e := range t.entries {
		for _, it := range e.items {
			if it.kind == headerItem || it.part >= len(e.msg.Parts) {
				continue
			}
			if tc := e.msg.Parts[it.part].Tool; tc != nil && old[tc.ID] != parked[tc.ID] {
				it.touch()
			}
		}
	}
}

// SetStreaming says whether the session streams output now: the cursor
// at the end of an unfinished answer shows only then, not while the
// session is parked on the operator or a timer, or paused. The answers
// without a finish are drawn again when it changes.
func (t *Transcript) SetStreaming(on bool) {
	if t.r.still == !on {
		return
	}
	t.r.still = !on
	for _, e := range t.entries {
		if !e.msg.Complete && e.msg.Role == sess.Assistant {
			for _, it := range e.items {
				it.touch()
			}
		}
	}
}

// Len returns how many messages the transcript holds.
func (t *Transcript) Len() int { return len(t.entries) }

// Set replaces every message (a freshly loaded transcript).
func (t *Transcript) Set(msgs []sess.Message) {
	t.entries = make([]*entry, 0, len(msgs))
	t.byID = make(map[string]int, len(msgs))
	for _, m := range msgs {
		t.byID[m.ID] = len(t.entries)
		t.entries = append(t.entries, newEntry(m))
	}
	t.follow, t.hasSel = true, false
}

// Message merges a message revision: a higher revision replaces the one
// held, an older one is ignored, a new id is appended.
func (t *Transcript) Message(m sess.Message) {
	if i, ok := t.byID[m.ID]; ok {
		if m.Rev > t.entries[i].msg.Rev {
			t.entries[i].replace(m)
		}
		return
	}
	t.byID[m.ID] = len(t.entries)
	t.entries = append(t.entries, newEntry(m))
	t.arrived(m.ID, true)
}

// Delta appends streamed text to a part, opening the part when it is the
// next one. It reports false for a delta it cannot place (its message is
// unknown or the part index skips ahead): the caller should reload.
func (t *Transcript) Delta(d core.Delta) bool {
	i, ok := t.byID[d.MessageID]
	if !ok {
		return false
	}
	e := t.entries[i]
	m := &e.msg
	switch {
	case d.Part == len(m.Parts):
		p := sess.Part{Type: d.Type}
		if d.Type == sess.ToolPart {
			p.Tool = &sess.ToolCall{ID: d.ToolID, Name: d.ToolName, State: sess.ToolPending}
		}
		m.Parts = append(m.Parts, p)
		e.items = append(e.items, &item{kind: partItem, part: d.Part})
	case d.Part > len(m.Parts) || d.Part < 0:
		return false
	}
	p := &m.Parts[d.Part]
	if p.Type == sess.ToolPart && p.Tool != nil {
		tc := *p.Tool // the part may alias a published revision: copy on write
		tc.Input += d.Text
		p.Tool = &tc
	} else {
		p.Text += d.Text
	}
	e.items[d.Part+1].touch()
	t.arrived(d.MessageID, false)
	return true
}

// HasError reports whether an error part of the transcript says text, so
// the header does not repeat it.
func (t *Transcript) HasError(text string) bool {
	text = strings.TrimSpace(text)
	for i := len(t.entries) - 1; i >= 0 && i >= len(t.entries)-50; i-- {
		for _, p := range t.entries[i].msg.Parts {
			if p.Type == sess.ErrorPart && strings.Contains(p.Text, text) {
				return true
			}
		}
	}
	return false
}

// SelectedMessage returns the id of the message holding the selected item
// (on a mark of the studio's, the message it follows: the engine knows
// only messages).
func (t *Transcript) SelectedMessage() (string, bool) {
	if !t.hasSel || !t.valid(t.sel) {
		return "", false
	}
	for i := t.sel.m; i >= 0; i-- {
		if !t.entries[i].mark {
			return t.entries[i].msg.ID, true
		}
	}
	return "", false
}

// SetStyles changes the styles (the theme changed) and drops every cached
// rendering.
func (t *Transcript) SetStyles(st themes.Styles) {
	t.r.st, t.r.md = st, markdown.NewRenderer(st)
	t.redraw()
}

// SetRaw shows the agent's answers as the Markdown source they are
// (copy mode: what the terminal selects is what the agent wrote), or
// drawn again. The drawn blocks stay cached across the switch.
func (t *Transcript) SetRaw(raw bool) {
	if raw == t.r.raw {
		return
	}
	t.r.raw = raw
	t.redraw()
}

// redraw drops every item's cached lines.
func (t *Transcript) redraw() {
	for _, e := range t.entries {
		for _, it := range e.items {
			it.cached = false
		}
	}
}
