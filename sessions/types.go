package sessions

import (
	"encoding/json"
	"time"
)

// Status is the lifecycle status of a session (DESIGN.md §1).
type Status string

// The five statuses of the lifecycle table.
const (
	Created Status = "CREATED"
	Running Status = "RUNNING"
	Waiting Status = "WAITING"
	Paused  Status = "PAUSED"
	Ended   Status = "ENDED"
)

// SubState says what a RUNNING session is doing.
type SubState string

// RUNNING sub-states: a worker holds it, a tool yielded, or the yield's event
// fired and it waits for a worker.
const (
	Active    SubState = "active"
	Parked    SubState = "parked"
	Resumable SubState = "resumable"
)

// EndReason says why a session ended.
type EndReason string

// The reasons an ENDED session carries.
const (
	Completed     EndReason = "completed"
	Failed        EndReason = "failed"
	Cancelled     EndReason = "cancelled"
	WorkspaceLost EndReason = "workspace_lost"
	ForceDeleted  EndReason = "force_deleted"
)

// WaitReason says why a session is WAITING.
type WaitReason string

// The reasons a WAITING session carries.
const (
	WaitQuestion      WaitReason = "question"
	WaitStopLimit     WaitReason = "stop_limit"
	WaitAwaitingInput WaitReason = "awaiting_input"
	WaitCannotResume  WaitReason = "cannot_resume"
)

// Mode is one-shot (ends when the agent is done) or continuous (a
// conversation that waits for its next input after each turn).
type Mode string

// The two session modes.
const (
	OneShot    Mode = "one-shot"
	Continuous Mode = "continuous"
)

// Access says whether a session may change the workspace.
type Access string

// The two access levels.
const (
	ReadWrite Access = "read-write"
	ReadOnly  Access = "read-only"
)

// Usage counts the tokens and cost of a turn or a session.
type Usage struct {
	InputTokens  int64   `json:"input_tokens,omitempty"`
	OutputTokens int64   `json:"output_tokens,omitempty"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.InputTokens + o.InputTokens, u.OutputTokens + o.OutputTokens, u.CostUSD + o.CostUSD}
}

// Session is the record kept in session.json. It holds the settings the
// session was created with and where it stands in its lifecycle.
type Session struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	Agent        string `json:"agent"`
	Instructions string `json:"instructions,omitempty"`
	Mode         Mode   `json:"mode"`
	Access       Access `json:"access"`
	Execution    string `json:"execution,omitempty"`
	Image        string `json:"image,omitempty"`
	// Instance names the workspace instance the session works on (an
	// isolated worktree or copy, see package instances); "" is the
	// workspace folder itself.
	Instance  string     `json:"instance,omitempty"`
	Approval  string     `json:"approval,omitempty"`
	Model     string     `json:"model,omitempty"`
	AutoStart bool       `json:"auto_start"`
	StartAt   *time.Time `json:"start_at,omitempty"`
	ForkOf    string     `json:"fork_of,omitempty"`
	// Key is the idempotency key the session was created with: creating
	// again with the same key returns this session instead of a new one.
	Key string `json:"key,omitempty"`

	Status     Status     `json:"status"`
	SubState   SubState   `json:"sub_state,omitempty"`
	WaitReason WaitReason `json:"wait_reason,omitempty"`
	EndReason  EndReason  `json:"end_reason,omitempty"`
	Error      string     `json:"error,omitempty"`
	Archived   bool       `json:"archived,omitempty"`
	// BetweenTurns marks a PAUSED session held after a turn ended (an agent
	// whose only boundary is its turn's end), rather than mid-turn: resuming
	// starts its next turn with the next queued input.
	BetweenTurns bool `json:"between_turns,omitempty"`

	// AgentResume is the agent's own session token (harness.TurnResult
	// Resume), so a later process can continue the agent's session.
	AgentResume string `json:"agent_resume,omitempty"`

	Turns int `json:"turns"`
	// The open turn: what it wrote through the engine so far and whether it
	// ran commands (which may change anything), kept here so the turn's one
	// history commit names them even after a pause, a quit or a crash.
	TurnWrote   []string `json:"turn_wrote,omitempty"`
	TurnRanExec bool     `json:"turn_ran_exec,omitempty"`
	// TurnKey is the idempotency key of the input that started the open
	// turn; its result is recorded when the turn ends.
	TurnKey string `json:"turn_key,omitempty"`
	// TurnOutputSchema is the output schema of the input that started
	// the open turn: its final answer is checked against it when the turn
	// ends (see Output).
	TurnOutputSchema json.RawMessage `json:"turn_output_schema,omitempty"`

	// OutputSchema is the JSON Schema the answer to the session's task
	// must match (structured output), given at creation.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Output is the structured answer of the latest turn whose input
	// carried an output schema: the JSON that matched, or why none did.
	Output *Output `json:"output,omitempty"`
	// CommitPending is set when a turn ended and cleared once its history
	// commit is written: a crash in between is committed at the next open.
	CommitPending bool `json:"commit_pending,omitempty"`
	// Unreadable marks the placeholder of a session whose record cannot be
	// read (never written: such a session is read-only); only its ID is
	// real, and its repair report says why.
	Unreadable bool `json:"unreadable,omitempty"`
	// Seal is this user's HMAC of the record (sessions/trust.go): a record
	// without a valid one is read-only.
	Seal      string    `json:"seal,omitempty"`
	Usage     Usage     `json:"usage"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Output is the structured answer of a turn whose input (the task, or a
// prompt) carried an output schema: the JSON value of the final answer
// that matched the schema, or the validation errors when none did.
type Output struct {
	Turn int `json:"turn"`
	// Prompt is the id of the prompt (the control) that started the
	// turn; "" for the session's task.
	Prompt string `json:"prompt,omitempty"`
	Valid  bool   `json:"valid"`
	// Value is the matching JSON value, compact, as the answer wrote it.
	Value json.RawMessage `json:"value,omitempty"`
	// Errors say why no JSON value of the answer matched: none found, or
	// the failed keywords with their place in the value.
	Errors []string `json:"errors,omitempty"`
}

// Live reports whether the session has not ended.
func (s *Session) Live() bool { return s.Status != Ended }
