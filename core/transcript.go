package core

import "github.com/atelier-studio/atelier/sessions"

// Transcript is a client's copy of one session's messages, kept current by
// applying live-view events to it. The studio and the command line use it,
// so every client merges snapshots and deltas the same way: a message
// revision replaces an older one by id (a lower revision is ignored), and a
// delta appends to its part, creating the part when it is the next one.
type Transcript struct {
	ID   string
	Msgs []sessions.Message
	idx  map[string]int
}

// NewTranscript starts a transcript from a snapshot of its messages.
func NewTranscript(id string, msgs []sessions.Message) *Transcript {
	t := &Transcript{ID: id, idx: map[string]int{}}
	for _, m := range msgs {
		t.put(m)
	}
	return t
}

func (t *Transcript) put(m sessions.Message) int {
	if i, ok := t.idx[m.ID]; ok {
		if m.Rev >= t.Msgs[i].Rev {
			t.Msgs[i] = m
		}
		return i
	}
	t.idx[m.ID] = len(t.Msgs)
	t.Msgs = append(t.Msgs, m)
	return len(t.Msgs) - 1
}

// Apply folds one event into the transcript and returns the index of the
// message it changed, or -1 when the event is not about this transcript.
func (t *Transcript) Apply(ev Event) int {
	if ev.SessionID != t.ID {
		return -1
	}
	switch ev.Kind {
	case EvMessage:
		return t.put(ev.Message.Clone())
	case EvDelta:
		d := ev.Delta
		i, ok := t.idx[d.MessageID]
		if !ok {
			i = t.put(sessions.Message{ID: d.MessageID, Role: sessions.Assistant})
		}
		m := &t.Msgs[i]
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
		return i
	}
	return -1
}
