package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// JSONEvent is one line of `--json` output (docs/cli.md has the schema).
// Type is one of session_created, status, delta, message, interaction,
// queue, commit, notice, ended and key; the other fields are set as the
// type needs. Seq is the engine's sequence number of the event reported (events
// the command makes up itself, such as session_created, carry none).
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
	Turn        int                   `json:"turn,omitempty"`
	Commit      string                `json:"commit,omitempty"`
	Text        string                `json:"text,omitempty"`
	// Replayed marks a session_created, ended or key event of a repeated
	// --key: the run was not made again, nothing was sent again.
	Replayed bool `json:"replayed,omitempty"`
	// Key is the idempotency key a key event reports.
	Key *KeyInfo `json:"key,omitempty"`
}

// KeyInfo is one idempotency key of a session, as `sessions keys --json`
// and the key event of `--json` show it. Result is what the key recorded
// once done: for a prompt or steer its turn's outcome, status and reply
// (core.PromptResult), for an exec the command's result.
type KeyInfo struct {
	Key    string          `json:"key"`
	Op     string          `json:"op"`
	State  string          `json:"state"`
	Turn   int             `json:"turn,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Time   time.Time       `json:"time"`
}

func keyInfoOf(k sessions.KeyRecord) KeyInfo {
	return KeyInfo{Key: k.Key, Op: k.Op, State: k.State, Turn: k.Turn, Result: k.Result, Time: k.Time}
}

// printer writes a run's events as JSON lines or as readable text.
type printer struct {
	s      *streams
	json   bool
	enc    *json.Encoder
	status sessions.Status
	sub    sessions.SubState
	tools  map[string]bool // tool calls already announced
	// midLine: the agent's text on stdout does not end with a newline.
	midLine bool
	// quiet leaves out, as text, the agent's text, tool calls and status
	// changes: a command that prints a recorded result at the end shows
	// only what needs the operator (interactions) and notices on the way.
	quiet bool
}

func newPrinter(s *streams, asJSON bool) *printer {
	return &printer{s: s, json: asJSON, enc: json.NewEncoder(s.out), tools: map[string]bool{}}
}

func (p *printer) emit(ev JSONEvent) {
	ev.Time = time.Now().UTC()
	// As for fmt.Fprint to the command's own output: a failed write (a
	// closed pipe) has nowhere else to be reported.
	_ = p.enc.Encode(ev)
}

func (p *printer) created(rec sessions.Session) {
	if p.json {
		p.emit(JSONEvent{Type: "session_created", SessionID: rec.ID, Session: &rec})
		return
	}
	p.line(p.s.err, "session %s (%s) created", rec.ID, rec.Agent)
}

func (p *printer) notice(id, text string) {
	if p.json {
		p.emit(JSONEvent{Type: "notice", SessionID: id, Text: text})
		return
	}
	p.line(p.s.err, "atelier: %s", text)
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
	case core.EvCommit:
		j.Type, j.Commit, j.Turn = "commit", ev.Text, ev.Turn
	default:
		return
	}
	p.emit(j)
}

func (p *printer) textEvent(ev core.Event) {
	if p.quiet && ev.Kind != core.EvInteraction && ev.Kind != core.EvNotice {
		return
	}
	switch ev.Kind {
	case core.EvDelta:
		if ev.Delta.Type == sessions.TextPart && ev.Delta.Text != "" {
			fmt.Fprint(p.s.out, ev.Delta.Text)
			p.midLine = !strings.HasSuffix(ev.Delta.Text, "\n")
		}
	case core.EvMessage:
		for _, part := range ev.Message.Parts {
			t := part.Tool
			if t == nil || !t.State.Finished() || p.tools[t.ID] {
				continue
			}
			p.tools[t.ID] = true
			p.line(p.s.out, "▸ %s %s → %s", t.Name, oneLineOf(t.Input, 100), t.State)
		}
	case core.EvInteraction:
		it := ev.Interaction
		if !it.Resolved {
			p.line(p.s.err, "? %s %s: %s", it.Kind, it.ID, describeInteraction(*it))
			return
		}
		switch {
		case it.Decision != "":
			p.line(p.s.err, "  %s by %s", it.Decision, it.By)
		case it.Answer != "":
			p.line(p.s.err, "  answered %q by %s", it.Answer, it.By)
		case it.Kind == sessions.Park:
			p.line(p.s.err, "  woken by %s", it.By)
		}
	case core.EvSession:
		r := ev.Session
		if r.Status != p.status {
			p.status = r.Status
			if r.Status != sessions.Created {
				p.line(p.s.err, "· %s", statusText(*r))
			}
		}
	case core.EvNotice:
		p.line(p.s.err, "atelier: %s", ev.Text)
	}
}

// line writes one line to w, first ending the agent's text on stdout when
// it stopped mid-line, so the two streams interleave readably.
func (p *printer) line(w io.Writer, format string, args ...any) {
	p.finish()
	fmt.Fprintf(w, format+"\n", args...)
}

// finish ends the agent's text with a newline when it stopped mid-line.
func (p *printer) finish() {
	if p.midLine && !p.json {
		fmt.Fprintln(p.s.out)
	}
	p.midLine = false
}

// replayed reports a run that a repeated --key did not make again: the
// session it made, and where that session stands.
func (p *printer) replayed(rec sessions.Session, msgs []sessions.Message) {
	if p.json {
		p.emit(JSONEvent{Type: "session_created", SessionID: rec.ID, Session: &rec, Replayed: true})
		if rec.Status == sessions.Ended {
			p.emit(JSONEvent{Type: "ended", SessionID: rec.ID, Status: rec.Status, Reason: string(rec.EndReason),
				Error: rec.Error, Session: &rec, Replayed: true})
		}
		return
	}
	fmt.Fprintf(p.s.err, "session %s (%s) was made by this key before: %s\n", rec.ID, rec.Agent, needs(rec))
	if rec.Status != sessions.Ended {
		return
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == sessions.Assistant && msgs[i].Text() != "" {
			fmt.Fprintln(p.s.out, msgs[i].Text())
			return
		}
	}
}

// keyResult reports the recorded result of a repeated key: as a key event,
// or as a first send with --wait shows a turn: the reply on stdout, the
// status it left on stderr.
func (p *printer) keyResult(verb string, k sessions.KeyRecord, res core.PromptResult, rec sessions.Session) {
	if p.json {
		info := keyInfoOf(k)
		p.emit(JSONEvent{Type: "key", SessionID: rec.ID, Status: res.Status, Reason: string(res.WaitReason) + string(res.EndReason),
			Error: res.Error, Turn: res.Turn, Text: res.Text, Key: &info, Replayed: true})
		return
	}
	turn := ""
	if res.Turn > 0 {
		turn = fmt.Sprintf("turn %d, ", res.Turn)
	}
	outcome := res.Outcome
	if outcome == "" {
		outcome = "done"
	}
	p.line(p.s.err, "atelier: %s %s: key %s is done (%s%s); nothing was sent again", verb, rec.ID, k.Key, turn, outcome)
	if res.Text != "" {
		fmt.Fprint(p.s.out, res.Text)
		p.midLine = !strings.HasSuffix(res.Text, "\n")
	}
	p.line(p.s.err, "· %s", statusText(rec))
	if res.Error != "" {
		p.line(p.s.err, "  error: %s", res.Error)
	}
}
