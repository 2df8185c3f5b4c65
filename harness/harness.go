package harness

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// Boundary is where the engine may act on a running session (steer, pause).
type Boundary string

// Boundaries: after every model call, or only between the agent's turns.
const (
	StepBoundary Boundary = "step"
	TurnBoundary Boundary = "turn"
)

// Caps says what a harness allows the engine to do (the table in DESIGN.md §3).
type Caps struct {
	// Boundary is where steer and pause take effect.
	Boundary Boundary
	// SteerMidTurn is true when the agent takes a steer through its own
	// input while a turn runs (claude stream-json, codex turn/steer).
	SteerMidTurn bool
	// Resume is true when the agent can pick up an interrupted turn after a
	// crash; otherwise the session waits with cannot_resume.
	Resume bool
	// Compact is true when the harness can summarise history for compaction.
	Compact bool
	// TurnLease asks the engine to hold the workspace's write lease for the
	// agent's whole turn (released while the session is parked), for
	// agents whose own tools write without asking us (claude, codex). ACP
	// agents ask for each file operation, so they take leases per request.
	TurnLease bool
}

// Harness is either a Model or an Agent.
type Harness interface {
	Name() string
	Caps() Caps
}

// Emitter receives a turn's streamed output. Calls come from the harness's
// goroutine, in order; the engine turns them into transcript mutations.
type Emitter interface {
	// Text appends to the assistant's current text part.
	Text(delta string)
	// Reasoning appends to the current reasoning part.
	Reasoning(delta string)
	// ToolStart opens a tool call part.
	ToolStart(id, name string)
	// ToolInput appends streamed input to a tool call part.
	ToolInput(id, delta string)
	// ToolResult gives an agent-run tool call its result (Agents only: for a
	// Model the engine runs the tools and records their results itself).
	ToolResult(id, output string, state sessions.ToolState)
	// Usage reports tokens and cost so far for this step or turn.
	Usage(u sessions.Usage)
	// Notice shows a transient remark on the session ("retrying in 8s").
	Notice(text string)
}

// Rewinder is an Emitter that can drop what the current step streamed so
// far, so a Model may retry a stream that failed midway (an overload after
// the first tokens) without doubling text or leaving half a tool call. The
// engine's emitter implements it; a harness checks with a type assertion.
type Rewinder interface {
	Rewind()
}

// Signer is an Emitter that keeps a provider's signed thinking in the
// transcript, so a later step (in another process, after a restart) can
// send it back as the provider requires. The engine's emitter implements
// it; a harness checks with a type assertion.
type Signer interface {
	// SignReasoning attaches a signature to the reasoning part just
	// streamed.
	SignReasoning(signature string)
	// RedactedReasoning adds thinking the provider sent encrypted.
	RedactedReasoning(data string)
}

// ToolSpec describes a tool the engine offers to a Model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// ToolCall is a call a Model asks for.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// StopReason says why a step or turn ended.
type StopReason string

// Stop reasons.
const (
	StopEnd       StopReason = "end"        // the agent is done with the turn
	StopToolUse   StopReason = "tool_use"   // a Model wants its tool calls run
	StopQuestion  StopReason = "question"   // the final message asks the operator
	StopMaxTokens StopReason = "max_tokens" // a stop limit was hit
	StopMaxTurns  StopReason = "max_turns"
)

// StepRequest is one model call of the engine's tool loop.
type StepRequest struct {
	SessionID    string
	Step         int
	Model        string
	Instructions string
	History      []sessions.Message
	Tools        []ToolSpec
	// Output is the JSON Schema the turn's final answer must match, nil
	// for a free answer. The engine has already put guidance derived
	// from it in the user's message; a harness may use it too (the demo
	// answers with a value built from it).
	Output json.RawMessage
}

// StepResult is what a model call produced besides its streamed output.
type StepResult struct {
	ToolCalls []ToolCall
	Stop      StopReason
	Usage     sessions.Usage
}

// Model is a harness driven by the engine's tool loop.
type Model interface {
	Harness
	Step(ctx context.Context, req StepRequest, out Emitter) (StepResult, error)
}

// TurnRequest is one turn of an Agent.
type TurnRequest struct {
	SessionID    string
	Turn         int
	Input        string
	Instructions string
	History      []sessions.Message
	// Model is the model the operator chose, "" for the agent's default.
	Model string
	// Resume is the agent's own session token from an earlier turn's
	// TurnResult (claude's session id, codex's thread id), kept by the
	// engine so a new process can continue the agent's session after a
	// restart. "" for a session's first turn.
	Resume string
	// Output is as in StepRequest: the schema of the final answer, whose
	// guidance is already in Input.
	Output json.RawMessage
}

// TurnResult is what an agent turn produced besides its streamed output.
type TurnResult struct {
	Stop  StopReason
	Usage sessions.Usage
	// Resume is the token to continue the agent's session later (see
	// TurnRequest.Resume); the engine persists it with the session.
	Resume string
}

// ApprovalRequest is what an agent wants to do, for the operator to decide.
type ApprovalRequest struct {
	ToolCall string
	Tool     string
	// Kind says what the call would do, for the approval policy: the
	// engine judges an agent program's request as it judges its own tools
	// (a read-only policy refuses all but reads).
	Kind    ActionKind
	Command string
	Path    string
	Diff    string
	Reason  string
}

// ActionKind classes an agent program's tool call for the approval
// policy. An adapter that cannot tell leaves it unknown, which the engine
// takes as a change: a write when a path is named, a command otherwise.
type ActionKind string

// The kinds of action an approval asks about.
const (
	ActionUnknown ActionKind = ""
	ActionRead    ActionKind = "read"  // reads or searches, changes nothing
	ActionWrite   ActionKind = "write" // writes, edits, moves or deletes files
	ActionExec    ActionKind = "exec"  // runs a command
)

// ApprovalAnswer is the operator's decision. Allowed is false for a denial,
// with the operator's Message for the agent.
type ApprovalAnswer struct {
	Allowed bool
	Message string
}

// Host is what the engine offers an Agent during a turn. Approve and Ask
// block until answered (the session parks meanwhile) or ctx ends.
type Host interface {
	Approve(ctx context.Context, req ApprovalRequest) (ApprovalAnswer, error)
	Ask(ctx context.Context, text string, choices []string, def string) (string, error)

	// Workspace is the workspace's absolute path (the agent's working
	// directory).
	Workspace() string
	// Spawn starts a process in the session's execution environment (on
	// the host, or inside the session's container): this is how an agent
	// CLI itself is started. env holds extra KEY=VALUE variables.
	Spawn(ctx context.Context, argv []string, env []string) (terminal.Process, error)
	// Exec runs a command in the session's execution environment, under
	// the workspace's write lease, attributed to the session (an ACP
	// agent's terminal requests).
	Exec(ctx context.Context, req terminal.ExecRequest) (terminal.ExecResult, error)
	// ReadFile and WriteFile go through the workspace's confinement,
	// leases and attribution (an ACP agent's file requests). A write to a
	// protected path asks the operator first, whatever the policy.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	WriteFile(ctx context.Context, path string, data []byte) error
}

// Steerer is an Agent that takes a steer while its turn runs, through its
// own input (claude stream-json user message, codex turn/steer). Others get
// steers at their next turn.
type Steerer interface {
	Steer(ctx context.Context, sessionID, text string) error
}

// Closer is an Agent that keeps something per session (a running CLI)
// between turns; the engine calls CloseSession when the session ends, is
// deleted, or the engine shuts down.
type Closer interface {
	CloseSession(sessionID string) error
}

// Agent is a harness that runs its own tools, one turn at a time.
type Agent interface {
	Harness
	Turn(ctx context.Context, req TurnRequest, out Emitter, host Host) (TurnResult, error)
}

// ErrUnsupportedInput is returned for prompt parts an agent cannot take.
var ErrUnsupportedInput = errors.New("not supported by this agent")
