package core

import (
	"context"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
)

// The engine's surface, by role: what a client of the engine can do. The
// engine implements the reading and hosting roles and Caller the controls
// (asserted below); the API server serves exactly these (api.Engine) and
// holds no rule of its own, and the studio reaches the same roles in
// process or through a host (attach.Engine). A role is small so that a
// client takes only what it uses.

// SessionReader reads the sessions and what each holds.
type SessionReader interface {
	Session(id string) (sessions.Session, error)
	Sessions() []sessions.Session
	Transcript(id string) ([]sessions.Message, uint64, error)
	TranscriptTail(id string, n int) ([]sessions.Message, uint64, bool, error)
	Repairs(id string) []sessions.Repair
	Keys(id string) ([]sessions.KeyRecord, error)
	Queue(id string) ([]sessions.Control, error)
	Grants(id string) ([]string, error)
	Context(id string) (AgentContext, error)
	Actions() []ActionItem
}

// LiveView is the workspace's state now and every change after it.
type LiveView interface {
	Workspace() string
	Snapshot() Snapshot
	Subscribe(transcripts ...string) (Snapshot, *Subscription)
	StateNotice() string
}

// SessionAdmin makes, copies and removes sessions, and hands them what
// they wait for from outside (variables, events).
type SessionAdmin interface {
	Create(o CreateOptions) (sessions.Session, error)
	Fork(id, upTo, title string) (sessions.Session, error)
	Delete(id string) error
	ForgetKey(id, key string) error
	HandEnv(id string, vars map[string]string) error
	FireEvent(name, data string) int
}

// Controls are a session's controls, sent as one client (Caller).
type Controls interface {
	Start(id string) error
	Pause(id string) (Receipt, error)
	Resume(id string) (Receipt, error)
	Stop(id string) (Receipt, error)
	Cancel(id string) (Receipt, error)
	CloseSession(id string) (Receipt, error)
	Send(id, text string, key ...string) (Receipt, error)
	Prompt(id string, p Prompt) (Receipt, error)
	Steer(id, text string, key ...string) (Receipt, error)
	SetModel(id, model string) (Receipt, error)
	SetApproval(id, policy string) (Receipt, error)
	Nudge(id string) (Receipt, error)
	Clear(id string) (Receipt, error)
	Compact(id string) (Receipt, error)
	Archive(id string, archived bool) error
	Answer(sessionID, interactionID string, a Answer) error
	RemoveQueued(id, controlID string) error
	MoveQueued(id, controlID string, to int) error
	EditQueued(id, controlID, text string) error
	Revoke(id, grant string) error
}

// InstanceControls make, compare, apply and discard the workspace's
// instances, as one client (Caller).
type InstanceControls interface {
	ListInstances() ([]InstanceInfo, error)
	CreateInstance(kind instances.Kind, id string) (instances.Instance, error)
	InstanceDiff(id string) (instances.Diff, error)
	InstanceSize(id string) (instances.Size, error)
	EstimateCopy() (instances.Size, error)
	ApplyInstance(id string, opt instances.ApplyOptions) (instances.ApplyResult, error)
	DiscardInstance(id string, force bool) error
	BranchInstance(id, name string) (string, error)
}

// WorkspaceFiles are the files of the workspace and of its instances, the
// write lease the operator's writes take, and the history.
type WorkspaceFiles interface {
	Files() *files.Workspace
	FilesOf(instance string) (*files.Workspace, error)
	LeaseWriteOf(ctx context.Context, instance, owner string) (release func(), err error)
	History() *history.History
	HistoryError() error
	// ChangeMarks are what was created, changed or deleted in the
	// workspace since the last turn started (marks.go).
	ChangeMarks() []engine.ChangeMark
}

// HostTerminals are the terminals the host owns, which outlive a client.
type HostTerminals interface {
	OpenTerminal(o TerminalOptions) (*Terminal, error)
	Terminal(id string) (*Terminal, error)
	Terminals() ([]TerminalInfo, error)
	CloseTerminal(id string) error
}

// Commands run a command in a session's environment, whole or streamed.
type Commands interface {
	Exec(ctx context.Context, id string, cmd ExecCommand) (ExecResult, error)
	ExecStream(ctx context.Context, id string, cmd ExecCommand, out ExecOutput) (ExecResult, error)
}

// Callers label the controls a client sends: the client's name and the
// user it acts for.
type Callers interface {
	As(client string) Caller
	AsUser(client, user string) Caller
}

var (
	_ SessionReader    = (*Engine)(nil)
	_ LiveView         = (*Engine)(nil)
	_ SessionAdmin     = (*Engine)(nil)
	_ WorkspaceFiles   = (*Engine)(nil)
	_ HostTerminals    = (*Engine)(nil)
	_ Commands         = (*Engine)(nil)
	_ Callers          = (*Engine)(nil)
	_ Controls         = Caller{}
	_ InstanceControls = Caller{}
)
