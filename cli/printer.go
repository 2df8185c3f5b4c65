package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// JSONEvent is one line of `--json` output. Type is one of session_created,
// status, delta, message, interaction, queue, notice and ended; the other
// fields are set as the type needs (docs/cli.md lists them).
type JSONEvent struct {
	Type        string                `json:"type"`
	Seq         uint64                `json:"seq,omitempty"`
	Time        time.Time             `json:"time"`
	SessionID   string                `json:"session_id"`
	Status      sessions.Status       `json:"status,omitempty"`
	SubState    sessions.SubState     `json:"sub_state,omitempty"`
	Reason      string                `json:"reason,omitempty"`
	Error       string                `json:"error,omitempty"`
	Session     *sessions.Session     `json:"session,omitempty"`
	Delta       *core.Delta           `json:"delta,omitempty"`
	Message     *sessions.Message     `json:"message,omitempty"`
	Interaction *sessions.Interaction `json:"interaction,omitempty"`
	Queue       []sessions.Control    `json:"queue,omitempty"`
	Text        string                `json:"text,omitempty"`
}

// printer writes a run's events as JSON lines or as readable text.
type printer struct {
	s      *streams
	json   bool
	enc    *json.Encoder
	status sessions.Status
	sub    sessions.SubState
	tools  map[string]bool // tool calls already announced
}

func newPrinter(s *streams, asJSON bool) *printer {
	return &printer{s: s, json: asJSON, enc: json.NewEncoder(s.out), tools: map[string]bool{}}
}

func (p *printer) emit(ev JSONEvent) {
	ev.Time = time.Now().UTC()
	p.enc.Encode(ev)
}

func (p *printer) created(rec sessions.Session) {
	if p.json {
		p.emit(JSONEvent{Type: "session_created", SessionID: rec.ID, Status: rec.Status, Session: &rec})
		return
	}
	fmt.Fprintf(p.s.err, "session %s (%s) created\n", rec.ID, rec.Agent)
}

func (p *printer) notice(id, text string) {
	if p.json {
		p.emit(JSONEvent{Type: "notice", SessionID: id, Text: text})
		return
	}
	fmt.Fprintln(p.s.err, "atelier:", text)
}

func (p *printer) event(ev core.Event) {
	if p.json {
		p.jsonEvent(ev)
		return
	}
	p.textEvent(ev)
}

func (p *printer) jsonEvent(ev core.Event) {
	j := JSONEvent{Seq: ev.Seq, SessionID: ev.SessionID}
	switch ev.Kind {
	case core.EvSession:
		r := ev.Session
		if r.Status == p.status && r.SubState == p.sub {
			return
		}
		p.status, p.sub = r.Status, r.SubState
		j.Type, j.Status, j.SubState = "status", r.Status, r.SubState
		j.Reason = string(r.WaitReason) + string(r.EndReason)
		if r.Status == sessions.Ended {
			j.Type, j.Error, j.Session = "ended", r.Error, r
		}
	case core.EvDelta:
		j.Type, j.Delta = "delta", ev.Delta
	case core.EvMessage:
		if !ev.Message.Complete {
			return
		}
		j.Type, j.Message = "message", ev.Message
	case core.EvInteraction:
		j.Type, j.Interaction = "interaction", ev.Interaction
	case core.EvQueue:
		j.Type, j.Queue = "queue", ev.Queue
	case core.EvNotice:
		j.Type, j.Text = "notice", ev.Text
	default:
		return
	}
	p.emit(j)
}

func (p *printer) textEvent(ev core.Event) {
	switch ev.Kind {
	case core.EvDelta:
		if ev.Delta.Type == sessions.TextPart {
			fmt.Fprint(p.s.out, ev.Delta.Text)
		}
	case core.EvMessage:
		for _, part := range ev.Message.Parts {
			t := part.Tool
			if t == nil || !t.State.Finished() || p.tools[t.ID] {
				continue
			}
			p.tools[t.ID] = true
			fmt.Fprintf(p.s.out, "\n▸ %s %s → %s\n", t.Name, t.Input, t.State)
		}
	case core.EvInteraction:
		it := ev.Interaction
		if !it.Resolved {
			fmt.Fprintf(p.s.err, "\n[%s] %s%s%s\n", it.Kind, it.Text, it.Command, it.Path)
		}
	case core.EvSession:
		r := ev.Session
		if r.Status != p.status {
			p.status = r.Status
			fmt.Fprintf(p.s.err, "\n[%s %s%s]\n", r.Status, r.WaitReason, r.EndReason)
		}
	case core.EvNotice:
		fmt.Fprintln(p.s.err, "\natelier:", ev.Text)
	}
}
