package attach

import (
	"context"
	"encoding/json"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/notify"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
	"github.com/atelier-studio/atelier/trigger/state"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// Engine is what the studio does to a workspace's engine. Calls may do
// I/O (a request to a host): the studio makes them inside commands, never
// in Update. Errors match core's sentinels whichever side answered.
type Engine interface {
	// Workspace is the workspace's absolute path.
	Workspace() string
	// Subscribe returns the state now and a feed of every change after
	// it. An attached engine may answer before it reached its host: with
	// an empty snapshot, then a resync on the feed once it has the real
	// one, so the studio's first frame never waits for a host.
	Subscribe() (core.Snapshot, Feed)
	// Snapshot is the state now; after a resync on the feed, the state the
	// feed's next events apply to.
	Snapshot() core.Snapshot
	// Repairs says what opening a session's files repaired.
	Repairs(id string) []sessions.Repair
	// StateNotice is why the workspace's state is not run (foreign,
	// newer or unwritable), or "".
	StateNotice() string
	// RunLogPath is the file the engine logs its runs to.
	RunLogPath() string

	Create(o core.CreateOptions) (sessions.Session, error)
	Fork(id, upTo, title string) (sessions.Session, error)
	Transcript(id string) ([]sessions.Message, uint64, error)
	TranscriptTail(id string, n int) ([]sessions.Message, uint64, bool, error)

	SessionControls
	Instances
	Delete(id string) error
	Grants(id string) ([]string, error)
	Revoke(id, grant string) error

	// SessionShell starts a program (the environment's shell when command
	// is empty) on a pty in a session's execution environment: its
	// container for a Docker session.
	SessionShell(ctx context.Context, id string, size terminal.Size, command []string) (terminal.PTY, error)
	// SaveFile writes a file of the workspace as the operator, under the
	// workspace's write lease: it waits while a session writes or runs a
	// command, so the operator's save never overlaps an agent's write.
	SaveFile(ctx context.Context, path string, data []byte) error
	// FileOp makes one change of the file pane (create, mkdir, rename,
	// delete, upload) as the operator, under the workspace's write lease
	// as SaveFile; an upload returns what it copied.
	FileOp(ctx context.Context, op FileOp) (files.CopyStats, error)
	// Restore restores files of the workspace as they were at a commit, as
	// a new commit made for a session, under the workspace's write lease;
	// it returns the new commit's hash.
	Restore(ctx context.Context, commit string, paths []string, session string) (string, error)
	// History is the workspace's history, or why there is none.
	History() (History, error)
	// ChangeMarks are the host's one set of the workspace's change marks:
	// what was created, changed or deleted since the last turn started.
	// The snapshot carries them too, and core.EvMarks events replace them.
	ChangeMarks(ctx context.Context) ([]engine.ChangeMark, error)

	// Notifications lists the notification channels of the workspace's
	// host ([notify]) and whether each is ready.
	Notifications(ctx context.Context) (notify.Status, error)
	// TestNotifications sends a test notification through every channel
	// now and says how each fared.
	TestNotifications(ctx context.Context) ([]notify.Result, error)

	// WorkflowRuns lists the workspace's workflow runs, newest first.
	WorkflowRuns(ctx context.Context) ([]runs.Run, error)
	// Triggers lists the triggers the workspace's host runs, each with its
	// last firing and, for a schedule, when it is next due.
	Triggers(ctx context.Context) ([]state.Trigger, error)

	// What the studio starts beside a session (starts.go): a workflow's
	// run and a named event, as `atelier workflow run` and `atelier events
	// fire` do.

	// Workflows lists the workflows the host can run, each with its input
	// schema when it declares one.
	Workflows(ctx context.Context) ([]runs.Source, error)
	// RunWorkflow starts a run of the named workflow with input (a JSON
	// value; nil is {}). A run that needs a person suspends (approve
	// "ask"), to be answered and resumed.
	RunWorkflow(ctx context.Context, name string, input json.RawMessage) (runs.Run, error)
	// FireEvent fires a named event with data (JSON; nil for none): the
	// sessions parked on it wake, and the host's triggers listening for
	// it fire.
	FireEvent(ctx context.Context, name string, data json.RawMessage) (Fired, error)
}

// SessionControls are the controls of a session, the same for the studio
// and the command line's short commands, in-process or through a host.
type SessionControls interface {
	Start(id string) error
	Pause(id string) (core.Receipt, error)
	Resume(id string) (core.Receipt, error)
	Stop(id string) (core.Receipt, error)
	Cancel(id string) (core.Receipt, error)
	CloseSession(id string) (core.Receipt, error)
	Nudge(id string) (core.Receipt, error)
	// Compact asks the agent for a summary of the older history, which
	// then stands in for it in what the agent is shown.
	Compact(id string) (core.Receipt, error)
	// Clear starts the conversation afresh: the agent is shown nothing
	// said before (the transcript keeps it all).
	Clear(id string) (core.Receipt, error)
	Archive(id string, archived bool) error
	Send(id, text string, key ...string) (core.Receipt, error)
	// Prompt is Send with the prompt's options (an output schema).
	Prompt(id string, p core.Prompt) (core.Receipt, error)
	Steer(id, text string, key ...string) (core.Receipt, error)
	RemoveQueued(id, controlID string) error
	MoveQueued(id, controlID string, to int) error
	EditQueued(id, controlID, text string) error
	Answer(sessionID, interactionID string, a core.Answer) error
}

// Feed is the live view after a snapshot. Wait on Ready, then Drain; a
// lone core.EvResync event means take Snapshot again. Ready is closed when
// the feed ends.
type Feed interface {
	Ready() <-chan struct{}
	Drain() []core.Event
	Close()
}

var (
	_ Engine = local{}
	_ Engine = (*Remote)(nil)
	// In process, the controls are the engine's own Caller: nothing of
	// them is written again here.
	_ SessionControls = core.Caller{}
)
