package sessions

import "time"

// InteractionKind says what an interaction asks of the operator.
type InteractionKind string

// Interaction kinds. Approvals and questions park a RUNNING session; a park
// waits for a timer or a named event; stuck is the watchdog's report.
const (
	Approval InteractionKind = "approval"
	Question InteractionKind = "question"
	Park     InteractionKind = "park"
	Stuck    InteractionKind = "stuck"
)

// Decision is an answer to an approval.
type Decision string

// Approval answers. AllowSession records an engine grant; the agent itself is
// only ever told "allow once", so revoking the grant takes effect.
const (
	AllowOnce    Decision = "allow_once"
	AllowSession Decision = "allow_session"
	Deny         Decision = "deny"
)

// Interaction is one line of interactions.jsonl: opened when Resolved is
// false, or the resolution of interaction ID.
type Interaction struct {
	ID       string          `json:"id"`
	Kind     InteractionKind `json:"kind"`
	Turn     int             `json:"turn,omitempty"`
	Time     time.Time       `json:"time"`
	Resolved bool            `json:"resolved,omitempty"`
	Tool     string          `json:"tool,omitempty"`
	ToolCall string          `json:"tool_call,omitempty"`
	Command  string          `json:"command,omitempty"`
	Path     string          `json:"path,omitempty"`
	Diff     string          `json:"diff,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Text     string          `json:"text,omitempty"`
	Choices  []string        `json:"choices,omitempty"`
	Default  string          `json:"default,omitempty"`
	Deadline *time.Time      `json:"deadline,omitempty"`
	Event    string          `json:"event,omitempty"`
	Decision Decision        `json:"decision,omitempty"`
	Answer   string          `json:"answer,omitempty"`
	Message  string          `json:"message,omitempty"`
	By       string          `json:"by,omitempty"`
	// Prefix is, on an allow_session answer to a command, the start of
	// the commands the grant covers (it covers only the command otherwise).
	Prefix string `json:"prefix,omitempty"`
	// Protected marks an approval only a person may answer: the engine
	// found that the call writes a protected path (.atelier.toml, .state/,
	// .atelier/, a .git folder) or reads a secret file. No policy, session
	// grant or `run --approve auto` allows it.
	Protected bool `json:"protected,omitempty"`
}
