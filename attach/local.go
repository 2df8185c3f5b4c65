package attach

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/notify"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/terminal"
	"github.com/atelier-studio/atelier/workflow"
)

// ErrNoHistory says the engine runs without a history and gives no reason.
var ErrNoHistory = errors.New("the workspace has no history")

// Local is the engine this process hosts, without notification channels.
func Local(e *core.Engine) Engine { return local{Engine: e, Caller: e.As("")} }

// LocalWith is the engine this process hosts, with its notification
// channels (nil: none).
func LocalWith(e *core.Engine, n *notify.Notifier) Engine {
	return local{Engine: e, Caller: e.As(""), n: n}
}

// LocalOptions are what the host of this process hands its studio
// besides the engine.
type LocalOptions struct {
	// Notifier is the host's notification channels (nil: none).
	Notifier *notify.Notifier
	// Triggers are the triggers the host runs (its configuration's).
	Triggers []config.Trigger
	// CopyWarnSize is the size over which the studio asks before a copy
	// instance is made ([instances] warn_size); 0 is core.DefaultWarnSize.
	CopyWarnSize int64
	// Workflows is the host's workflow runner, the one its API serves
	// (nil: the host runs none).
	Workflows *workflow.Runner
}

// LocalHost is the engine this process hosts, with what its host runs
// beside it.
func LocalHost(e *core.Engine, o LocalOptions) Engine {
	return local{Engine: e, Caller: e.As(""), n: o.Notifier, triggers: o.Triggers, copyWarn: o.CopyWarnSize, wf: o.Workflows}
}

type local struct {
	*core.Engine
	// Caller is the engine's control surface, as this process's own
	// client: the session controls.
	core.Caller
	n        *notify.Notifier
	triggers []config.Trigger
	copyWarn int64
	wf       *workflow.Runner
}

// Notifications lists the channels (none without a notifier).
func (l local) Notifications(context.Context) (notify.Status, error) {
	if l.n == nil {
		return notify.Status{Events: []string{}, Channels: []notify.Channel{}}, nil
	}
	return l.n.Status(), nil
}

// TestNotifications runs the channels in this process.
func (l local) TestNotifications(ctx context.Context) ([]notify.Result, error) {
	if l.n == nil {
		return []notify.Result{}, nil
	}
	ws := l.Workspace()
	return l.n.Test(ctx, notify.Event{Workspace: ws, Act: notify.Act(ws)}), nil
}

func (l local) Subscribe() (core.Snapshot, Feed) { return l.Engine.Subscribe() }

func (l local) SessionShell(ctx context.Context, id string, size terminal.Size, command []string) (terminal.PTY, error) {
	env, err := l.SessionEnv(id)
	if err != nil {
		return nil, fmt.Errorf("open terminal: %w", err) // as the host's terminals say it
	}
	return env.Shell(ctx, size, command)
}

// SaveFile takes the write lease as a writer of its own (never a
// session's id: leases are re-entrant within an owner).
func (l local) SaveFile(ctx context.Context, path string, data []byte) error {
	release, err := l.lease(ctx)
	if err != nil {
		return err
	}
	defer release()
	return l.Files().WriteFile(files.Operator, path, data)
}

// lease takes the workspace's write lease for one of the studio's writes;
// one that waited too long names who held it.
func (l local) lease(ctx context.Context) (release func(), err error) {
	return l.LeaseWriteOf(ctx, "", "studio-"+strconv.FormatUint(saves.Add(1), 10))
}

// Restore runs the history's restore under the write lease, as the API's
// restore route does.
func (l local) Restore(ctx context.Context, commit string, paths []string, session string) (string, error) {
	h, err := l.history()
	if err != nil {
		return "", err
	}
	release, err := l.lease(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	c, err := h.Restore(ctx, commit, paths, history.RestoreOptions{SessionID: session})
	return c.Hash, err
}

// saves numbers the studio's writes, each a lease owner of its own.
var saves atomic.Uint64

// History returns the workspace's history, opening it (I/O: a first open
// snapshots the workspace).
func (l local) History() (History, error) {
	h, err := l.history()
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (l local) history() (*history.History, error) {
	if h := l.Engine.History(); h != nil {
		return h, nil
	}
	if err := l.HistoryError(); err != nil {
		return nil, err
	}
	return nil, ErrNoHistory
}
