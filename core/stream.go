package core

import (
	"time"

	"github.com/atelier-studio/atelier/internal/redact"
	"github.com/atelier-studio/atelier/sessions"
)

// stream is the Emitter handed to a harness for one assistant message. It
// applies the harness's output to the transcript: deltas are published at
// once (provisional), and the message is persisted when a part completes
// and at least every checkpointEvery while it streams.
//
// Secret values never reach the message or a subscriber (Options.Redactor):
// each delta goes through the open part's redacting stream, which holds
// back an end that could still be the start of a secret until the next
// delta or the part's end (flushLocked), so a value split across deltas is
// caught; tool inputs and outputs set whole are redacted at each
// checkpoint.
type stream struct {
	e        *Engine
	l        *live
	msgID    string
	lastSave time.Time
	usage    sessions.Usage
	red      *redact.Stream      // the open (last) part's deltas
	clean    map[string]toolText // tool calls' input and output as last redacted, by id
}

// toolText is a tool call's input and output once redacted.
type toolText struct{ input, output string }

func (l *live) newStream() (*stream, error) {
	e := l.e
	e.mu.Lock()
	defer e.mu.Unlock()
	m, err := l.newMessageLocked(sessions.Assistant, nil, false)
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
			s.flushLocked()
			s.checkpointLocked()
		}
		p := sessions.Part{Type: typ}
		if typ == sessions.ToolPart {
			p.Tool = &sessions.ToolCall{ID: toolID, Name: toolName, State: sessions.ToolPending}
		}
		m.Parts = append(m.Parts, p)
		n++
	}
	if s.red == nil {
		s.red = s.e.opts.Redactor.Stream()
	}
	s.l.progressLocked(s.e.opts.Now())
	if delta = s.red.Write(delta); delta != "" || !same {
		s.addLocked(m, n-1, delta)
	}
	if s.e.opts.Now().Sub(s.lastSave) >= checkpointEvery {
		s.checkpointLocked()
	}
}

// addLocked appends redacted text to part i of m and publishes it.
func (s *stream) addLocked(m *sessions.Message, i int, text string) {
	p := &m.Parts[i]
	d := &Delta{MessageID: s.msgID, Part: i, Type: p.Type, Text: text}
	if p.Tool != nil {
		p.Tool.Input += text
		d.ToolID, d.ToolName = p.Tool.ID, p.Tool.Name
	} else {
		p.Text += text
	}
	s.e.bus.publish(Event{Kind: EvDelta, SessionID: s.l.rec.ID, Delta: d})
}

// flushLocked ends the open part's redacting stream: what it held back
// joins the part, redacted.
func (s *stream) flushLocked() {
	red := s.red
	s.red = nil
	tail := red.Flush()
	if tail == "" {
		return
	}
	if m := s.l.msgLocked(s.msgID); m != nil && len(m.Parts) > 0 {
		s.addLocked(m, len(m.Parts)-1, tail)
	}
}

// flushToolLocked ends the open part's stream when it is tool call id's
// input: the call's input is complete once its result comes.
func (s *stream) flushToolLocked(id string) {
	m := s.l.msgLocked(s.msgID)
	if m == nil || len(m.Parts) == 0 {
		return
	}
	if t := m.Parts[len(m.Parts)-1].Tool; t != nil && t.ID == id {
		s.flushLocked()
	}
}

func (s *stream) checkpointLocked() {
	s.lastSave = s.e.opts.Now()
	s.redactToolsLocked()
	s.l.commitMessageLocked(s.msgID)
}

// redactToolsLocked redacts the tool calls' inputs and outputs that
// changed since the last checkpoint: set whole (a call's input as the
// engine runs it, a result), they did not come through the deltas' stream.
func (s *stream) redactToolsLocked() {
	r := s.e.opts.Redactor
	m := s.l.msgLocked(s.msgID)
	if r.Empty() || m == nil {
		return
	}
	if s.clean == nil {
		s.clean = map[string]toolText{}
	}
	for i := range m.Parts {
		t := m.Parts[i].Tool
		if t == nil {
			continue
		}
		if c, ok := s.clean[t.ID]; ok && c.input == t.Input && c.output == t.Output {
			continue
		}
		t.Input, t.Output = r.Redact(t.Input), r.Redact(t.Output)
		s.clean[t.ID] = toolText{t.Input, t.Output}
	}
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
	s.flushToolLocked(id)
	if t := s.toolLocked(id); t != nil {
		t.Output, t.State = output, state
		s.l.progressLocked(s.e.opts.Now())
		s.l.noteCallLocked(t.Name, t.Input)
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
	s.flushLocked()
	if m := s.l.msgLocked(s.msgID); m != nil && !m.Complete {
		m.Complete = true
		s.l.commitMessageLocked(s.msgID)
	}
}

// Rewind implements harness.Rewinder: the step's message loses every part
// streamed so far, and the emptied revision is persisted and published, so
// every client drops the provisional output before the retry streams anew.
func (s *stream) Rewind() {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.red = nil // what it held back goes with the parts
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
	s.flushLocked() // a signed reasoning part is complete
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
	s.flushLocked()
	m := s.l.msgLocked(s.msgID)
	if m == nil {
		return
	}
	m.Parts = append(m.Parts, sessions.Part{Type: sessions.ReasoningPart, Redacted: data})
	s.checkpointLocked()
}
