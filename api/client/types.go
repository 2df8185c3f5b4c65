package client

import (
	"encoding/json"
	"time"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// Health is the answer of GET /v1/health.
type Health struct {
	OK        bool   `json:"ok"`
	Version   string `json:"version"`
	PID       int    `json:"pid"`
	Workspace string `json:"workspace"`
}

// Version is the answer of GET /v1/version.
type Version struct {
	Version string `json:"version"`
	API     string `json:"api"`
}

// CreateRequest is the body of POST /v1/sessions. Task is another name for
// Instructions; give one of them.
type CreateRequest struct {
	Agent        string     `json:"agent,omitempty"`
	Title        string     `json:"title,omitempty"`
	Instructions string     `json:"instructions,omitempty"`
	Task         string     `json:"task,omitempty"`
	Mode         string     `json:"mode,omitempty"`
	Access       string     `json:"access,omitempty"`
	Execution    string     `json:"execution,omitempty"`
	Image        string     `json:"image,omitempty"`
	Approval     string     `json:"approval,omitempty"`
	Model        string     `json:"model,omitempty"`
	AutoStart    bool       `json:"auto_start,omitempty"`
	StartAt      *time.Time `json:"start_at,omitempty"`
	Key          string     `json:"key,omitempty"`
	// OutputSchema is the JSON Schema the answer to the task must match
	// (structured output): the session's Output then holds the JSON that
	// matched, or the validation errors. A schema that cannot be used is
	// refused (400, output_schema) and nothing is created.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Env holds the variables of the client's environment that the
	// session's agent reads (its key, the variables its configuration
	// names, its CLI's own): the host resolves the agent with them, keeps
	// them in memory only, and redacts their secrets. Others are ignored.
	Env map[string]string `json:"env,omitempty"`
	// Isolation is where the session works: in-place (the workspace
	// folder, the default), worktree or copy (a new instance of its own,
	// named after it). Instance joins an existing instance instead.
	Isolation string `json:"isolation,omitempty"`
	Instance  string `json:"instance,omitempty"`
}

// InputRequest is the body of send and steer.
type InputRequest struct {
	Text string `json:"text"`
	Key  string `json:"key,omitempty"`
	// OutputSchema is, for send only, the JSON Schema the answer must
	// match, as in CreateRequest; its outcome is in the session's Output
	// and in the key's result.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Env is as in CreateRequest: it replaces the variables the session
	// was handed before, from its next turn on.
	Env map[string]string `json:"env,omitempty"`
}

// ForkRequest is the body of fork: the history up to and including message
// UpTo ("" copies it all) goes into a new session.
type ForkRequest struct {
	UpTo  string `json:"up_to,omitempty"`
	Title string `json:"title,omitempty"`
}

// ModelRequest is the body of model.
type ModelRequest struct {
	Model string `json:"model"`
}

// ApprovalRequest is the body of approval.
type ApprovalRequest struct {
	Policy string `json:"policy"`
}

// MoveRequest is the body of a queue move: To is the new position, 0 next.
type MoveRequest struct {
	To int `json:"to"`
}

// EditRequest is the body of a queue edit: the pending prompt's or steer's
// new text.
type EditRequest struct {
	Text string `json:"text"`
}

// Response answers an interaction: Decision for an approval (allow_once,
// allow_session, deny) with an optional Message for the agent, Text for a
// question.
type Response struct {
	Decision sessions.Decision `json:"decision,omitempty"`
	Message  string            `json:"message,omitempty"`
	Text     string            `json:"text,omitempty"`
	// Prefix, with allow_session on an approval of a command, grants the
	// commands starting with it (the command alone otherwise).
	Prefix string `json:"prefix,omitempty"`
}

// The engine's own types, as the API sends them (package engine): the
// client decodes into them, so what it hands on is what the engine made.
type (
	Receipt     = engine.Receipt
	Interaction = engine.OpenInteraction
	ActionItem  = engine.ActionItem
	Snapshot    = engine.Snapshot
	Delta       = engine.Delta
	Signal      = engine.Signal
)

// MessagePage is a page of a transcript, oldest first: the newest messages,
// or those before a given one. More says older ones exist. Seq is the event
// sequence number the page is current at.
type MessagePage struct {
	Messages []sessions.Message `json:"messages"`
	Seq      uint64             `json:"seq"`
	More     bool               `json:"more"`
}

// ExecRequest is the body of POST /v1/instances/{instance}/exec: Argv run
// as it is, or Shell through /bin/sh -c (exactly one), in the session's
// execution environment. Timeout is a Go duration ("30s").
type ExecRequest struct {
	Session string   `json:"session"`
	Argv    []string `json:"argv,omitempty"`
	Shell   string   `json:"shell,omitempty"`
	Key     string   `json:"key,omitempty"`
	Timeout string   `json:"timeout,omitempty"`
}

// ExecResult is a command's outcome. A non-zero exit is a result, not an
// error. Replayed says a repeated key returned the recorded result and
// nothing ran.
type ExecResult struct {
	ExitCode        int    `json:"exit_code"`
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	StdoutTruncated bool   `json:"stdout_truncated,omitempty"`
	StderrTruncated bool   `json:"stderr_truncated,omitempty"`
	TimedOut        bool   `json:"timed_out,omitempty"`
	Cancelled       bool   `json:"cancelled,omitempty"`
	DurationNS      int64  `json:"duration_ns"`
	Replayed        bool   `json:"replayed,omitempty"`
}

// Event kinds of the stream besides the engine's own (removed, queue,
// notice, commit, signal, instance: engine.EventKind).
const (
	// KindSnapshot carries a Snapshot: the state the events after it apply to.
	KindSnapshot = engine.EvSnapshot
	// KindResync says the server could not resume the stream: drop what
	// was built from it; a snapshot follows.
	KindResync = engine.EvResync
	// KindMessage is a message revision: the highest Rev of an id wins.
	KindMessage = engine.EvMessage
	// KindDelta is text appended to one part of a message (provisional).
	KindDelta = engine.EvDelta
	// KindSession is a session's new record.
	KindSession = engine.EvSession
	// KindInteraction is an interaction opened or resolved.
	KindInteraction = engine.EvInteraction
)

// Event is one event of the stream: the engine's event, field for field
// (Seq is the engine's sequence number, the SSE id), and on a snapshot
// event the snapshot (whose Seq the event's is).
type Event struct {
	engine.Event
	Snapshot *Snapshot `json:"-"`
}
