package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/sessions"
)

// Bounds of what the tools return.
const (
	defaultMessages = 5
	maxMessages     = 50
	defaultChars    = 2000
	maxChars        = 20000
	// execChars bounds each of a command's outputs; diffChars an
	// approval's diff.
	execChars = 16000
	diffChars = 4000
)

// Session is what the tools say of a session.
type Session struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Agent      string    `json:"agent"`
	Mode       string    `json:"mode"`
	Approval   string    `json:"approval,omitempty"`
	Status     string    `json:"status" jsonschema:"CREATED, RUNNING, WAITING, PAUSED or ENDED"`
	SubState   string    `json:"sub_state,omitempty" jsonschema:"what a RUNNING session does: active, parked (waiting on an approval, a question, a timer or an event), resumable"`
	WaitReason string    `json:"wait_reason,omitempty"`
	EndReason  string    `json:"end_reason,omitempty"`
	Error      string    `json:"error,omitempty"`
	Turns      int       `json:"turns"`
	Archived   bool      `json:"archived,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	Output     *Output   `json:"output,omitempty" jsonschema:"the structured answer of the latest turn given an output schema"`
}

// Output is the structured answer of a turn given an output schema.
type Output struct {
	Turn   int      `json:"turn"`
	Valid  bool     `json:"valid" jsonschema:"whether a JSON value of the answer matched the schema"`
	Value  any      `json:"value,omitempty" jsonschema:"the JSON value that matched"`
	Errors []string `json:"errors,omitempty" jsonschema:"why no value matched"`
}

func sessionView(s sessions.Session) Session {
	v := Session{ID: s.ID, Title: s.Title, Agent: s.Agent, Mode: string(s.Mode), Approval: s.Approval,
		Status: string(s.Status), SubState: string(s.SubState), WaitReason: string(s.WaitReason),
		EndReason: string(s.EndReason), Error: s.Error, Turns: s.Turns, Archived: s.Archived,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
	if o := s.Output; o != nil {
		v.Output = &Output{Turn: o.Turn, Valid: o.Valid, Errors: o.Errors}
		if len(o.Value) > 0 {
			if err := json.Unmarshal(o.Value, &v.Output.Value); err != nil {
				v.Output.Value = string(o.Value) // the engine validated it: never, but said as it is
			}
		}
	}
	return v
}

// state is a session's status in a few words: "RUNNING (parked)".
func (s Session) state() string {
	var why []string
	for _, w := range []string{s.SubState, s.WaitReason, s.EndReason} {
		if w != "" {
			why = append(why, w)
		}
	}
	if len(why) == 0 {
		return s.Status
	}
	return s.Status + " (" + strings.Join(why, ", ") + ")"
}

// Message is a transcript message, text only: its text and error parts
// joined, clipped; tool calls only counted.
type Message struct {
	ID        string `json:"id"`
	Role      string `json:"role" jsonschema:"user, assistant, notice (the engine's remark) or summary"`
	Turn      int    `json:"turn"`
	Text      string `json:"text"`
	Clipped   bool   `json:"clipped,omitempty" jsonschema:"the text was cut at max_chars"`
	ToolCalls int    `json:"tool_calls,omitempty"`
	Complete  bool   `json:"complete"`
}

func messageView(m sessions.Message, limit int) Message {
	var b strings.Builder
	calls := 0
	for _, p := range m.Parts {
		switch p.Type {
		case sessions.TextPart, sessions.ErrorPart:
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			if p.Type == sessions.ErrorPart {
				b.WriteString("error: ")
			}
			b.WriteString(p.Text)
		case sessions.ToolPart:
			calls++
		}
	}
	text, clipped := clip(b.String(), limit)
	return Message{ID: m.ID, Role: string(m.Role), Turn: m.Turn, Text: text, Clipped: clipped, ToolCalls: calls, Complete: m.Complete}
}

// Interaction is what waits on the operator: an approval, a question, a
// park or a stuck report.
type Interaction struct {
	Session   string     `json:"session"`
	ID        string     `json:"id"`
	Kind      string     `json:"kind" jsonschema:"approval (answer with a decision), question (answer with text), park or stuck"`
	Tool      string     `json:"tool,omitempty"`
	Command   string     `json:"command,omitempty"`
	Path      string     `json:"path,omitempty"`
	Diff      string     `json:"diff,omitempty"`
	Reason    string     `json:"reason,omitempty"`
	Text      string     `json:"text,omitempty" jsonschema:"a question's text"`
	Choices   []string   `json:"choices,omitempty"`
	Default   string     `json:"default,omitempty"`
	Deadline  *time.Time `json:"deadline,omitempty"`
	Event     string     `json:"event,omitempty"`
	Protected bool       `json:"protected,omitempty" jsonschema:"only a person may allow it (a protected path or a secret)"`
}

func interactionView(it client.Interaction) Interaction {
	diff, _ := clip(it.Diff, diffChars)
	return Interaction{Session: it.SessionID, ID: it.ID, Kind: string(it.Kind), Tool: it.Tool, Command: it.Command,
		Path: it.Path, Diff: diff, Reason: it.Reason, Text: it.Text, Choices: it.Choices, Default: it.Default,
		Deadline: it.Deadline, Event: it.Event, Protected: it.Protected}
}

// summary is an interaction in a few words.
func (it Interaction) summary() string {
	what := it.Command
	if what == "" {
		what = it.Path
	}
	if what == "" {
		what = it.Text
	}
	if what == "" {
		what = it.Event
	}
	what, _ = clip(what, 80)
	s := fmt.Sprintf("%s %s of session %s", it.Kind, it.ID, it.Session)
	if it.Tool != "" {
		s += " (" + it.Tool + ")"
	}
	if what != "" {
		s += ": " + strings.ReplaceAll(what, "\n", " ")
	}
	return s
}

// clip cuts s to at most limit bytes on a rune boundary and says whether
// it did.
func clip(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…", true
}

// bounded returns n, or def when n is 0, at most most.
func bounded(n, def, most int) int {
	if n <= 0 {
		return def
	}
	return min(n, most)
}
