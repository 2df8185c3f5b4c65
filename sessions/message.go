package sessions

import "time"

// Role says who wrote a message.
type Role string

// Message roles. Notice messages are the engine's own remarks in a
// transcript (a retry, a superseded pause); harnesses do not send them to
// the model.
const (
	User      Role = "user"
	Assistant Role = "assistant"
	Notice    Role = "notice"
	// Summary is a compaction's summary: it stands for every message up to
	// and including Covers (except the task), which harnesses no longer see.
	Summary Role = "summary"
	// Cleared marks where a clear started the conversation afresh:
	// harnesses see nothing before it; the transcript keeps it all.
	Cleared Role = "cleared"
)

// PartType says what a message part holds.
type PartType string

// Part types.
const (
	TextPart      PartType = "text"
	ReasoningPart PartType = "reasoning"
	ToolPart      PartType = "tool"
	ErrorPart     PartType = "error"
)

// ToolState is where a tool call stands. A tool call is never left dangling:
// a cancelled or crashed turn gives it an interrupted result.
type ToolState string

// Tool call states.
const (
	ToolPending     ToolState = "pending"
	ToolRunning     ToolState = "running"
	ToolDone        ToolState = "done"
	ToolError       ToolState = "error"
	ToolDenied      ToolState = "denied"
	ToolInterrupted ToolState = "interrupted"
)

// Finished reports whether the call has its result.
func (s ToolState) Finished() bool {
	return s == ToolDone || s == ToolError || s == ToolDenied || s == ToolInterrupted
}

// ToolCall is a tool part: the call, its input and, once finished, its result.
type ToolCall struct {
	ID     string    `json:"id"`
	Name   string    `json:"name"`
	Input  string    `json:"input"`
	Output string    `json:"output,omitempty"`
	State  ToolState `json:"state"`
	// Seal is this user's HMAC of the call (Store.SealCall), set when the
	// engine runs it: recovery runs again, without asking, only a pending
	// call that carries it.
	Seal string `json:"seal,omitempty"`
}

// Part is one piece of a message: text, reasoning, a tool call or an error.
type Part struct {
	Type PartType  `json:"type"`
	Text string    `json:"text,omitempty"`
	Tool *ToolCall `json:"tool,omitempty"`
	// Signature is, on a reasoning part, the provider's signature of the
	// thinking (Anthropic sends signed thinking back with tool results);
	// Redacted holds thinking the provider sent encrypted.
	Signature string `json:"signature,omitempty"`
	Redacted  string `json:"redacted,omitempty"`
}

// Message is one revision of a transcript message. messages.jsonl holds one
// revision per line; the highest revision of an id wins.
type Message struct {
	ID       string    `json:"id"`
	Rev      int       `json:"rev"`
	Turn     int       `json:"turn"`
	Role     Role      `json:"role"`
	Parts    []Part    `json:"parts"`
	Time     time.Time `json:"time"`
	Complete bool      `json:"complete"`
	// Covers is, on a summary message, the id of the last message it
	// summarises.
	Covers string `json:"covers,omitempty"`
	// Input is, on a user message, the id of the control (a prompt or a
	// steer) it delivered, so a delivery is never repeated after a crash.
	Input string `json:"input,omitempty"`
	// Dropped, on a message's last revision, takes the message out of the
	// transcript: recovery writes it for a step a crash cut before its
	// first output, whose opening would otherwise stay as an empty reply.
	// The log is append-only, so the drop is a revision like any other;
	// readers skip the message, and its id is never given again.
	Dropped bool `json:"dropped,omitempty"`
}

// Clone returns a deep copy, so a published snapshot never aliases the
// engine's working copy.
func (m Message) Clone() Message {
	c := m
	c.Parts = make([]Part, len(m.Parts))
	for i, p := range m.Parts {
		c.Parts[i] = p
		if p.Tool != nil {
			t := *p.Tool
			c.Parts[i].Tool = &t
		}
	}
	return c
}

// Text returns the message's text parts joined.
func (m Message) Text() string {
	var s string
	for _, p := range m.Parts {
		if p.Type == TextPart {
			s += p.Text
		}
	}
	return s
}
