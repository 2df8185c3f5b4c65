package sessions

import (
	"encoding/json"
	"time"
)

// TurnEvent is one line of turns.jsonl, the session's audit log.
type TurnEvent struct {
	Time time.Time `json:"time"`
	Turn int       `json:"turn"`
	// Kind is start, recover, complete, fail, yield, resume, pause, stop,
	// cancel, retry, exec or output.
	Kind   string `json:"kind"`
	Status Status `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	Usage  *Usage `json:"usage,omitempty"`
	// Host is, on a start or a recover line, the process that runs the
	// turn from there on: the next recovery names it as the one that died.
	Host *Runner         `json:"host,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`
}

// Runner names a process that ran an engine: its pid, as the host record
// (engine.json) and the engine lease name it, and the engine's own id
// (the lease's owner), which tells two runs apart when a pid is reused.
type Runner struct {
	PID    int    `json:"pid"`
	Engine string `json:"engine,omitempty"`
}

// Recovery is the data of a recover line: an engine takes up a turn that
// a previous one left in flight. The line's Reason says how that one left
// it: "crash" (it died mid-turn) or "quit" (it handed the turn over).
type Recovery struct {
	// From is the engine that ran the turn before, when known.
	From *Runner `json:"from,omitempty"`
	// Step is where the turn resumes: the index, within the turn, of the
	// step it runs again or finishes (its assistant messages before it).
	Step int `json:"step"`
	// Call and Interaction name the tool call the resumed step waits on
	// again and its open interaction, when the turn was parked on one.
	Call        string `json:"call,omitempty"`
	Interaction string `json:"interaction,omitempty"`
	// Dropped lists the messages taken out of the transcript: steps the
	// crash cut before their first output.
	Dropped []string `json:"dropped,omitempty"`
}

// ControlKind names an operator control or a queued input.
type ControlKind string

// Controls. The first group acts at once; the second enters the session's
// input queue and applies in order at boundaries.
const (
	CtlPause   ControlKind = "pause"
	CtlResume  ControlKind = "resume"
	CtlStop    ControlKind = "stop"
	CtlCancel  ControlKind = "cancel"
	CtlClose   ControlKind = "close"
	CtlStart   ControlKind = "start"
	CtlNudge   ControlKind = "nudge"
	CtlArchive ControlKind = "archive"
	CtlAnswer  ControlKind = "answer"
	CtlDelete  ControlKind = "delete"
	CtlUnqueue ControlKind = "unqueue"
	CtlMove    ControlKind = "move"
	CtlEdit    ControlKind = "edit"
	CtlRevoke  ControlKind = "revoke"

	CtlPrompt   ControlKind = "prompt"
	CtlSteer    ControlKind = "steer"
	CtlModel    ControlKind = "model"
	CtlApproval ControlKind = "approval_policy"
	CtlCompact  ControlKind = "compact"
	CtlClear    ControlKind = "clear"
)

// Queued reports whether the control enters the input queue.
func (k ControlKind) Queued() bool {
	switch k {
	case CtlPrompt, CtlSteer, CtlModel, CtlApproval, CtlCompact, CtlClear:
		return true
	}
	return false
}

// Control is one line of controls.jsonl: a request when Outcome is empty, or
// the outcome of request ID. Requests are written (and synced) before they
// are acknowledged, so a restart honours every control not yet settled.
type Control struct {
	ID   string      `json:"id"`
	Kind ControlKind `json:"kind"`
	Text string      `json:"text,omitempty"`
	Key  string      `json:"key,omitempty"`
	Time time.Time   `json:"time"`
	// Outcome is applied, refused, superseded or removed, which settle
	// request ID; or moved or edited, which change the queued item ID and
	// leave it pending (Index, Text: its new position, its new text).
	Outcome string `json:"outcome,omitempty"`
	Detail  string `json:"detail,omitempty"`
	Index   int    `json:"index,omitempty"` // for "moved" and move: the new position in the queue
	// Output is, on a prompt, the JSON Schema its answer must match
	// (structured output; compact).
	Output json.RawMessage `json:"output,omitempty"`
	// Target names what the control acts on: a queued item (unqueue,
	// move, edit), an interaction (answer) or a grant (revoke).
	Target   string   `json:"target,omitempty"`
	Decision Decision `json:"decision,omitempty"`
	Message  string   `json:"message,omitempty"`
	Prefix   string   `json:"prefix,omitempty"` // answer: allow_session's command prefix
	// Origin is the engine process that recorded the request; the owner of
	// the session applies requests whose origin is another process.
	Origin string `json:"origin,omitempty"`
	// Client says who sent the control: "studio", "cli", "api", "mcp"
	// (core.Caller).
	Client string `json:"client,omitempty"`
	// User is who ran the client: "uid 1000 (alice)" for a process of
	// this machine (the engine's own, or a caller of the host's unix
	// socket, whose credentials the socket gives), "tcp ADDR" for a
	// client of the TCP listener, which only proved it holds the token.
	User string `json:"user,omitempty"`
}

// KeyRecord is one line of keys.jsonl: an idempotency key started, then its
// recorded result. A key started without a result is uncertain after a crash.
type KeyRecord struct {
	Key   string `json:"key"`
	Op    string `json:"op"`
	State string `json:"state"` // queued, started, done, uncertain, forgotten
	// Digest identifies the work the key was first given (a hash of the
	// prompt or command): the same key with other work is a conflict.
	Digest string          `json:"digest,omitempty"`
	Turn   int             `json:"turn,omitempty"` // the turn a keyed prompt started
	Result json.RawMessage `json:"result,omitempty"`
	Time   time.Time       `json:"time"`
}

// Key states.
const (
	KeyQueued    = "queued"
	KeyStarted   = "started"
	KeyDone      = "done"
	KeyUncertain = "uncertain"
	// KeyForgotten is written when the operator clears a key: the lines
	// before it no longer count, and the key is free for new work.
	KeyForgotten = "forgotten"
)
