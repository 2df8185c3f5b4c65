package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/redact"
	"github.com/atelier-studio/atelier/internal/termsafe"
	"github.com/atelier-studio/atelier/sessions"
)

// JSONEvent is one line of `--json` output (docs/cli.md has the schema).
// Type is one of session_created, status, delta, message, interaction,
// queue, commit, notice, ended, key and output; the other fields are set as the
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
	// Output is the structured answer an output event reports (--output):
	// valid with the matching value, or the validation errors.
	Output *sessions.Output `json:"output,omitempty"`
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

// printer writes a run's events as JSON lines or as readable text. Secret
// values never go out (redact): JSON lines are redacted whole, text lines
// too, and the agent's streamed text goes through a redacting stream per
// part, so a value split across two deltas is caught; what that stream
// holds back comes out at the part's end or at finish.
type printer struct {
	s    *streams
	json bool
	// jsonFailed: the --json stream could not be written (said once).
	jsonFailed bool
	red        *redact.Redactor
	text       *redact.Stream // the agent's text of part tpart, while it streams
	tpart      partKey
	status     sessions.Status
	sub        sessions.SubState
	tools      map[string]bool // tool calls already announced
	// midLine: the agent's text on stdout does not end with a newline.
	midLine bool
	// quiet leaves out, as text, the agent's text, tool calls and status
	// changes: a command that prints a recorded result at the end shows
	// only what needs the operator (interactions) and notices on the way.
	quiet bool
	// safe drops the control sequences of the agent's text before it is
	// redacted and printed, also one cut between two deltas (termsafe).
	safe termsafe.Stream
	// outputOnly keeps stdout for the structured answer (--output): the
	// agent's text and tool calls go to stderr.
	outputOnly bool
}

// partKey names one part of one message.
type partKey struct {
	msg  string
	part int
}

func newPrinter(s *streams, asJSON bool) *printer {
	return &printer{s: s, json: asJSON, red: s.redactor(), tools: map[string]bool{}}
}

func (p *printer) emit(ev JSONEvent) {
	ev.Time = time.Now().UTC()
	b, err := json.Marshal(ev)
	if err != nil {
		// Plain data always encodes; nothing half-made goes out.
		return
	}
	// A failed write (a closed pipe) is said once on stderr, which may
	// still reach the operator.
	if _, err := p.s.jsonOut().Write(append(p.red.RedactJSON(b), '\n')); err != nil && !p.jsonFailed {
		p.jsonFailed = true
		fmt.Fprintln(p.s.err, "atelier: the --json stream cannot be written:", err)
	}
}

// print writes text to w, redacted.
func (p *printer) print(w io.Writer, text string) {
	fmt.Fprint(w, p.red.Redact(text))
}

// agentText prints a streamed piece of the agent's text (part k).
func (p *printer) agentText(k partKey, piece string) {
	if p.text == nil || p.tpart != k {
		p.flushText()
		p.text, p.tpart = p.red.Stream(), k
	}
	p.agentOut(p.text.Write(p.safe.Write(piece)))
}

// flushText prints what the text stream held back: its part has ended.
func (p *printer) flushText() {
	if p.text != nil {
		p.agentOut(p.text.Write(p.safe.Flush()))
		p.agentOut(p.text.Flush())
		p.text = nil
	}
}

// agentW is where the agent's text and tool calls go: stdout, or stderr
// when stdout is kept for the structured answer.
func (p *printer) agentW() io.Writer {
	if p.outputOnly {
		return p.s.err
	}
	return p.s.out
}

func (p *printer) agentOut(text string) {
	if text != "" {
		fmt.Fprint(p.agentW(), text)
		p.midLine = !strings.HasSuffix(text, "\n")
	}
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
			p.agentText(partKey{ev.Delta.MessageID, ev.Delta.Part}, ev.Delta.Text)
		}
	case core.EvMessage:
		if p.text != nil && p.tpart.msg == ev.Message.ID && (ev.Message.Complete || p.tpart.part < len(ev.Message.Parts)-1) {
			p.flushText()
		}
		for _, part := range ev.Message.Parts {
			t := part.Tool
			if t == nil || !t.State.Finished() || p.tools[t.ID] {
				continue
			}
			p.tools[t.ID] = true
			p.line(p.agentW(), "▸ %s %s → %s", t.Name, oneLineOf(t.Input, 100), t.State)
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
	p.print(w, fmt.Sprintf(format+"\n", args...))
}

// finish prints what the agent's text stream held back and ends the text
// with a newline when it stopped mid-line.
func (p *printer) finish() {
	p.flushText()
	if p.midLine && !p.json {
		fmt.Fprintln(p.agentW())
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
	p.print(p.s.err, fmt.Sprintf("session %s (%s) was made by this key before: %s\n", rec.ID, rec.Agent, needs(rec)))
	if rec.Status != sessions.Ended {
		return
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == sessions.Assistant && msgs[i].Text() != "" {
			p.print(p.agentW(), msgs[i].Text()+"\n")
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
		p.agentOut(p.red.Redact(res.Text))
	}
	p.line(p.s.err, "· %s", statusText(rec))
	if res.Error != "" {
		p.line(p.s.err, "  error: %s", res.Error)
	}
}
