package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/notify"
)

// apiHandlerFor is the API every host of this binary serves over its
// engine, with the notification channels n (nil: none).
func apiHandlerFor(n *notify.Notifier) func(*core.Engine, func() func()) http.Handler {
	return func(e *core.Engine, _ func() func()) http.Handler {
		return api.NewServer(e, api.Options{Version: version(), SpawnedCaller: host.SpawnedCaller, User: host.CallerUser,
			Notify: notifications(n)})
	}
}

// stayingHost returns a client of the workspace's host for a command that
// stays with its session (run, --wait): the host that runs, or a detached
// one it starts. When none could be started (no binary to start: commands
// run in-process by tests; or a host that failed to start) the command
// hosts the engine itself for its life, serving the socket like any host,
// so every other process still reaches the one engine through it. stop
// lets the client go and, for a host of its own, closes it: turns in
// flight stop at a safe point, resumable by the next engine.
func (s *streams) stayingHost(ctx context.Context, workspace string) (c *client.Client, stop func() error, err error) {
	if ctx == nil {
		ctx = context.Background() // a command run without a context (tests)
	}
	if c := s.hostClient(ctx, workspace); c != nil {
		return c, func() error { c.CloseIdle(); return nil }, nil
	}
	if s.engineURL() != "" {
		return nil, nil, s.notRemote()
	}
	ws, err := workspaceDir(workspace)
	if err != nil {
		return nil, nil, err
	}
	c, stop, err = s.hostHere(ctx, ws)
	var running *host.ErrRunning
	if !errors.As(err, &running) {
		return c, stop, err
	}
	// Another process took the workspace since this one looked: a host
	// still opening its engine (under load that passes the health
	// check's few seconds), or another command hosting it. Wait for it
	// to answer rather than fail: twenty runs started at once all end as
	// clients of one host.
	if c := s.awaitHost(ctx, ws, hostStartWait); c != nil {
		return c, func() error { c.CloseIdle(); return nil }, nil
	}
	return nil, nil, withCode(ExitFailed, fmt.Errorf("%w, but does not answer: stop it with `atelier serve --stop` (or kill it)", err))
}

// hostStartWait bounds how long a command waits for a host that another
// process is starting to answer.
const hostStartWait = 30 * time.Second

// awaitHost waits, up to wait, for the host of ws to answer, and returns a
// client of it; nil when none answered in time (or the command was
// interrupted).
func (s *streams) awaitHost(ctx context.Context, ws string, wait time.Duration) *client.Client {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if c := s.hostClient(ctx, ws); c != nil {
			return c
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// hostHere hosts the workspace's engine in this process (see stayingHost)
// and returns a client of it once its socket answers.
func (s *streams) hostHere(ctx context.Context, ws string) (*client.Client, func() error, error) {
	ready := make(chan host.Record, 1)
	hosted := make(chan error, 1)
	// The host outlives an interrupt of the command: the command decides
	// what an interrupt does to its session, then stops the host.
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		hosted <- host.Run(hctx, host.Options{
			Workspace: ws,
			Open: func(ws string) (*core.Engine, error) {
				e, _, _, err := s.openEngine(ws, false)
				return e, err
			},
			Handler:  apiHandlerFor(nil), // the command itself tells of what waits
			IdleExit: -1,                 // the command decides when it ends
			Version:  version(),
			Ready:    func(r host.Record) { ready <- r },
		})
	}()
	var rec host.Record
	select {
	case rec = <-ready:
	case err := <-hosted:
		cancel()
		return nil, nil, err // an *host.ErrRunning when another process holds it: see stayingHost
	}
	label := s.client
	if label == "" {
		label = "cli"
	}
	c, err := client.New(rec.Socket, client.Options{Label: label})
	if err != nil {
		cancel()
		return nil, nil, errors.Join(err, <-hosted)
	}
	stop := func() error {
		c.CloseIdle()
		disarm := armInterrupts(context.Background()) // a second interrupt still exits while it closes
		defer disarm()
		cancel()
		if err := <-hosted; err != nil {
			return withCode(ExitFailed, fmt.Errorf("close the workspace's engine: %w", err))
		}
		return nil
	}
	return c, stop, nil
}
