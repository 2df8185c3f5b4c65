package core

import (
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// stream is the Emitter handed to a harness for one assistant message. It
// applies the harness's output to the transcript: deltas are published at
// once (provisional), and the message is persisted when a part completes
// and at least every checkpointEvery while it streams.
type stream struct {
	e        *Engine
	l        *live
	msgID    string
	lastSave time.Time
	usage    sessions.Usage
}

func (e *Engine) newStream(l *live) (*stream, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := e.newMessageLocked(l, sessions.Assistant, nil, false)
	if err != nil {
		return nil, err
	}
	return &stream{e: e, l: l, msgID: m.ID, lastSave: e.opts.Now()}, nil
}

// appendLocked adds delta to the message's last part when it is of type typ
// (and, for tools, the same call); otherwise it persists the message (its
// last part is complete) and opens a new part.
func (s *stream) appendLocked(typ sessions.PartType, toolID, toolName, delta string) {
	m := s.l.msgLocked(s.msgID)
	if m == nil {
		return
	}
	n := len(m.Parts)
	same := n > 0 && m.Parts[n-1].Type == typ &&
		(typ != sessions.ToolPart || m.Parts[n-1].Tool.ID == toolID)
	if !same {
		if n > 0 {
			s.checkpointLocked()
		}
		p := sessions.Part{Type: typ}
		if typ == sessions.ToolPart {
			p.Tool = &sessions.ToolCall{ID: toolID, Name: toolName, State: sessions.ToolPending}
		}
		m.Parts = append(m.Parts, p)
		n++
	}
	s.l.progressLocked(s.e.opts.Now())
	p := &m.Parts[n-1]
	if typ == sessions.ToolPart {
		p.Tool.Input += delta
		toolName = p.Tool.Name
	} else {
		p.Text += delta
	}
	s.e.bus.publish(Event{Kind: EvDelta, SessionID: s.l.rec.ID, Delta: &Delta{
		MessageID: s.msgID, Part: n - 1, Type: typ, ToolID: toolID, ToolName: toolName, Text: delta,
	}})
	if s.e.opts.Now().Sub(s.lastSave) >= checkpointEvery {
		s.checkpointLocked()
	}
}

func (s *stream) checkpointLocked() {
	s.lastSave = s.e.opts.Now()
	s.e.commitMessageLocked(s.l, s.msgID)
}

// Text implements harness.Emitter.
func (s *stream) Text(delta string) {
	s.e.mu.Lock()
	s.appendLocked(sessions.TextPart, "", "", delta)
	s.e.mu.Unlock()
}

// Reasoning implements harness.Emitter.
func (s *stream) Reasoning(delta string) {
	s.e.mu.Lock()
	s.appendLocked(sessions.ReasoningPart, "", "", delta)
	s.e.mu.Unlock()
}

// ToolStart implements harness.Emitter.
func (s *stream) ToolStart(id, name string) {
	s.e.mu.Lock()
	s.appendLocked(sessions.ToolPart, id, name, "")
	s.e.mu.Unlock()
}

// ToolInput implements harness.Emitter.
func (s *stream) ToolInput(id, delta string) {
	s.e.mu.Lock()
	s.appendLocked(sessions.ToolPart, id, "", delta)
	s.e.mu.Unlock()
}

// ToolResult implements harness.Emitter.
func (s *stream) ToolResult(id, output string, state sessions.ToolState) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if t := s.toolLocked(id); t != nil {
		t.Output, t.State = output, state
		s.l.progressLocked(s.e.opts.Now())
		s.e.noteCallLocked(s.l, t.Name, t.Input)
		s.checkpointLocked()
	}
}

// Usage implements harness.Emitter.
func (s *stream) Usage(u sessions.Usage) {
	s.e.mu.Lock()
	s.usage = u
	s.e.mu.Unlock()
}

// Notice implements harness.Emitter.
func (s *stream) Notice(text string) {
	s.e.mu.Lock()
	s.e.bus.publish(Event{Kind: EvNotice, SessionID: s.l.rec.ID, Text: text})
	s.e.mu.Unlock()
}

func (s *stream) toolLocked(id string) *sessions.ToolCall {
	m := s.l.msgLocked(s.msgID)
	if m == nil {
		return nil
	}
	for i := range m.Parts {
		if t := m.Parts[i].Tool; t != nil && t.ID == id {
			return t
		}
	}
	return nil
}

// finishLocked marks the message complete and persists it.
func (s *stream) finishLocked() {
	if m := s.l.msgLocked(s.msgID); m != nil && !m.Complete {
		m.Complete = true
		s.e.commitMessageLocked(s.l, s.msgID)
	}
}

// Rewind implements harness.Rewinder: the step's message loses every part
// streamed so far, and the emptied revision is persisted and published, so
// every client drops the provisional output before the retry streams anew.
func (s *stream) Rewind() {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if m := s.l.msgLocked(s.msgID); m != nil && len(m.Parts) > 0 {
		m.Parts = nil
		s.checkpointLocked()
	}
}

// SignReasoning implements harness.Signer: the message's last reasoning
// part keeps the signature, persisted with the part.
func (s *stream) SignReasoning(signature string) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	m := s.l.msgLocked(s.msgID)
	if m == nil {
		return
	}
	for i := len(m.Parts) - 1; i >= 0; i-- {
		if m.Parts[i].Type == sessions.ReasoningPart {
			m.Parts[i].Signature = signature
			s.checkpointLocked()
			return
		}
	}
}

// RedactedReasoning implements harness.Signer.
func (s *stream) RedactedReasoning(data string) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	m := s.l.msgLocked(s.msgID)
	if m == nil {
		return
	}
	m.Parts = append(m.Parts, sessions.Part{Type: sessions.ReasoningPart, Redacted: data})
	s.checkpointLocked()
}
