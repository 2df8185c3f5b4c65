package core

import "github.com/atelier-studio/atelier/sessions"

// replay is a subscriber's copy of one session's messages, rebuilt from a
// snapshot and the live-view events after it, to check that they give
// back what the engine persisted. It merges as DESIGN says a client does:
// a message revision replaces an older one by id (a lower revision is
// ignored), and a delta appends to its part, creating the part when it is
// the next one.
type replay struct {
	id   string
	msgs []sessions.Message
	idx  map[string]int
}

// newReplay starts a replay from a snapshot of the session's messages.
func newReplay(id string, msgs []sessions.Message) *replay {
	r := &replay{id: id, idx: map[string]int{}}
	for _, m := range msgs {
		r.put(m)
	}
	return r
}

func (r *replay) put(m sessions.Message) {
	if i, ok := r.idx[m.ID]; ok {
		if m.Rev >= r.msgs[i].Rev {
			r.msgs[i] = m
		}
		return
	}
	r.idx[m.ID] = len(r.msgs)
	r.msgs = append(r.msgs, m)
}

// apply folds one event into the replay; events of other sessions and
// other kinds change nothing.
func (r *replay) apply(ev Event) {
	if ev.SessionID != r.id {
		return
	}
	switch ev.Kind {
	case EvMessage:
		r.put(ev.Message.Clone())
	case EvDelta:
		d := ev.Delta
		if _, ok := r.idx[d.MessageID]; !ok {
			r.put(sessions.Message{ID: d.MessageID, Role: sessions.Assistant})
		}
		m := &r.msgs[r.idx[d.MessageID]]
		for len(m.Parts) <= d.Part {
			p := sessions.Part{Type: d.Type}
			if d.Type == sessions.ToolPart {
				p.Tool = &sessions.ToolCall{ID: d.ToolID, Name: d.ToolName, State: sessions.ToolPending}
			}
			m.Parts = append(m.Parts, p)
		}
		p := &m.Parts[d.Part]
		if p.Tool != nil {
			p.Tool.Input += d.Text
		} else {
			p.Text += d.Text
		}
	}
}
