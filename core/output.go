package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/structured"
)

// Structured output. A prompt (or a session's task) may carry an output
// JSON Schema. The schema is compiled when the prompt is sent, so one that
// cannot be used is refused (ErrOutputSchema) before it is recorded, let
// alone given to a model. The turn it starts carries the schema
// (Session.TurnOutputSchema, saved, so a resumed turn keeps it): its user
// message gets the guidance derived from the schema as a second text part,
// and the harness gets the schema itself. When the turn ends complete,
// the final answer is checked (structured.Schema.Check) and the outcome,
// the matching JSON or the validation errors, is recorded on the session
// (Session.Output, published with the record), in the audit log (an
// "output" line of turns.jsonl) and in the prompt's key result. A one-shot
// session whose answer does not match ends failed; a continuous one waits
// for its next input as usual: there is no automatic repair turn, the
// operator or the workflow decides.

// Prompt is a prompt with its options.
type Prompt struct {
	Text string
	// Key makes the prompt idempotent (see Receipt.Key).
	Key string
	// Output is the JSON Schema the answer must match; nil for a free
	// answer.
	Output json.RawMessage
}

// Prompt gives a session a prompt, as Send does, with an output schema
// when p has one.
func (c Caller) Prompt(id string, p Prompt) (Receipt, error) {
	if p.Text == "" {
		return Receipt{}, fmt.Errorf("%s: empty text", sessions.CtlPrompt)
	}
	if err := engine.TextTooLarge(string(sessions.CtlPrompt), len(p.Text)); err != nil {
		return Receipt{}, err
	}
	out, err := compileOutput(p.Output)
	if err != nil {
		return Receipt{}, err
	}
	return c.submit(id, sessions.Control{Kind: sessions.CtlPrompt, Text: p.Text, Key: p.Key, Output: out})
}

// compileOutput checks an output schema and returns it compact; nil stays
// nil (no schema).
func compileOutput(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	s, err := structured.Compile(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOutputSchema, err)
	}
	return s.Raw(), nil
}

// promptDigest is the key digest of a prompt: its text and, when it has
// one, its output schema, so the same key with another schema is a
// conflict, not a repeat. A prompt without a schema keeps the digest
// keys had before schemas existed.
func promptDigest(text string, output json.RawMessage) string {
	if len(output) == 0 {
		return keyDigest(string(sessions.CtlPrompt), text)
	}
	return keyDigest(string(sessions.CtlPrompt), text+"\x00output\x00"+string(output))
}

// turnInput is what opens a new turn: the user's message, the control
// that carried it ("" for the task or a "Continue."), and the schema its
// answer must match.
type turnInput struct {
	text, from string
	output     json.RawMessage
}

// inputParts are the parts of a new turn's user message: the text and,
// with an output schema, the guidance derived from it.
func inputParts(in *turnInput) []sessions.Part {
	parts := []sessions.Part{{Type: sessions.TextPart, Text: in.text}}
	if len(in.output) == 0 {
		return parts
	}
	s, err := structured.Compile(in.output)
	if err != nil {
		// Checked when it was sent: only a schema recorded by another
		// version can fail here, and its turn's check says so.
		return parts
	}
	return append(parts, sessions.Part{Type: sessions.TextPart, Text: "\n\n" + s.Guidance()})
}

// OutputError is the failure of a turn whose answer does not match its
// output schema (or has no JSON at all).
type OutputError struct {
	Session string
	Errors  []string
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("the answer of session %s does not match its output schema: %s", e.Session, strings.Join(e.Errors, "; "))
}

// checkOutputLocked checks the final answer of a turn that carries an
// output schema, when the turn ended complete: it records the outcome on
// the session, in the audit log, and returns it (nil for a turn without
// a schema).
func (l *live) checkOutputLocked() *sessions.Output {
	e := l.e
	if len(l.rec.TurnOutputSchema) == 0 {
		return nil
	}
	out := sessions.Output{Turn: l.rec.Turns, Prompt: l.turnPromptLocked()}
	s, err := structured.Compile(l.rec.TurnOutputSchema)
	if err != nil {
		out.Errors = []string{err.Error()}
	} else {
		r := s.Check(l.turnAnswerLocked())
		out.Valid, out.Value, out.Errors = r.Valid(), r.Value, r.Errors
	}
	l.rec.Output = &out
	data, err := json.Marshal(out)
	if err != nil {
		l.storeFailedLocked(err)
		return &out
	}
	l.appendTurnLocked(sessions.TurnEvent{Time: e.opts.Now(), Turn: l.rec.Turns, Kind: "output", Data: data})
	if !out.Valid {
		l.messageLocked(sessions.Notice, []sessions.Part{{Type: sessions.ErrorPart,
			Text: "the answer does not match the output schema: " + strings.Join(out.Errors, "; ")}})
	}
	return &out
}

// turnAnswerLocked is the agent's final answer of the open turn: the text
// of its last assistant message with text.
func (l *live) turnAnswerLocked() string {
	for i := len(l.msgs) - 1; i >= 0 && l.msgs[i].Turn == l.rec.Turns; i-- {
		if l.msgs[i].Role == sessions.Assistant && l.msgs[i].Text() != "" {
			return l.msgs[i].Text()
		}
	}
	return ""
}

// turnPromptLocked is the control that opened the open turn: the Input of
// its first user message ("" for the task).
func (l *live) turnPromptLocked() string {
	from := ""
	for i := len(l.msgs) - 1; i >= 0 && l.msgs[i].Turn == l.rec.Turns; i-- {
		if l.msgs[i].Role == sessions.User {
			from = l.msgs[i].Input
		}
	}
	return from
}
