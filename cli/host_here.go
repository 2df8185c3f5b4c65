package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/notify"
	"github.com/atelier-studio/atelier/workflow"
)

// apiHandlerFor is the API every host of this binary serves over its
// engine, with the notification channels n (nil: none) and the engine's
// workflow runner: one per engine, built with the handler, which stops
// when the engine closes (and holds the host while a run runs). wfs, when
// set, hands the runner to the host's triggers; hc is the configuration
// the host uses, whose triggers GET /v1/triggers lists and which GET
// /v1/config answers.
func (s *streams) apiHandlerFor(n *notify.Notifier, wfs *hostWorkflows, hc *hostConfig) func(*core.Engine, func() func()) http.Handler {
	return func(e *core.Engine, hold func() func()) http.Handler {
		wf := workflow.NewRunner(e, workflow.Options{Finder: s.workflowFinder(e.Workspace()), Hold: hold})
		wfs.set(wf)
		return api.NewServer(e, api.Options{Version: version(), SpawnedCaller: host.SpawnedCaller, User: host.CallerUser,
			Notify: notifications(n), Workflows: wf, Triggers: hostTriggerList(e.Workspace(), hc.current), Config: hc.view,
			CopyWarnSize: s.copyWarnSize(e.Workspace())})
	}
}

// workflowFinder finds the workflows of ws: the workspace's, obeyed while
// the operator's trust covers them, and the user's, beside config.toml.
func (s *streams) workflowFinder(ws string) workflow.Finder {
	lo := s.loadOptions(ws)
	f := workflow.Finder{Workspace: ws, Trust: func() (config.TrustState, error) {
		store, err := lo.TrustStore()
		if err != nil {
			return "", err
		}
		return store.State(ws)
	}}
	if user, err := lo.UserFile(); err == nil {
		f.UserDir = filepath.Dir(user)
	}
	return f
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

// inProcess is the workspace's engine hosted by this process (host.Run on
// a goroutine of its own), serving its socket like any host: a studio with
// --in-process, or a command that stays with its session when no host
// could be started.
type inProcess struct {
	eng *core.Engine
	cfg *config.Config
	ag  *agents
	// n are the configured notification channels, made when asked for, to
	// list and test: a host of this process never notifies by itself.
	n *notify.Notifier
	// wfs is the host's workflow runner, for the studio it hosts.
	wfs    *hostWorkflows
	rec    host.Record
	cancel context.CancelFunc
	hosted chan error
}

// hostInProcess hosts ws in this process and returns once its socket
// listens; an *host.ErrRunning when another process hosts it. The host
// outlives an interrupt of ctx: its owner decides what an interrupt does,
// then stops it.
func (s *streams) hostInProcess(ctx context.Context, ws string, channels bool) (*inProcess, error) {
	wfs := newHostWorkflows()
	h := &inProcess{hosted: make(chan error, 1), wfs: wfs}
	hc := &hostConfig{}
	ready := make(chan host.Record, 1)
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h.cancel = cancel
	go func() {
		h.hosted <- host.Run(hctx, host.Options{
			Workspace: ws,
			Open: func(ws string) (*core.Engine, error) {
				e, cfg, ag, err := s.openEngine(ws, false)
				if err == nil {
					h.eng, h.cfg, h.ag = e, cfg, ag
					hc.opened(s.loadOptions(ws), cfg, ag)
					if channels {
						h.n = newNotifier(cfg, nil)
					}
				}
				return e, err
			},
			// Built after Open, on the same goroutine: h.n and h.cfg are set.
			Handler: func(e *core.Engine, hold func() func()) http.Handler {
				return s.apiHandlerFor(h.n, wfs, hc)(e, hold)
			},
			Companion:   hc.companion(hostTriggers(hc.current, nil, wfs)),
			Reconfigure: hc.reconfigure(s.loadOptions(ws)),
			IdleExit:    -1, // its owner decides when it ends
			Version:     version(),
			Ready:       func(r host.Record) { ready <- r },
		})
	}()
	select {
	case h.rec = <-ready: // sent after Open: h's fields are set
		return h, nil
	case err := <-h.hosted:
		cancel()
		return nil, err
	}
}

// stop closes the host (its engine: running turns stop at a safe point,
// resumable by the next engine) and returns what failed.
func (h *inProcess) stop() error {
	h.cancel()
	return <-h.hosted
}

// hostHere hosts the workspace's engine in this process (see stayingHost)
// and returns a client of it once its socket answers.
func (s *streams) hostHere(ctx context.Context, ws string) (*client.Client, func() error, error) {
	h, err := s.hostInProcess(ctx, ws, false)
	if err != nil {
		return nil, nil, err // an *host.ErrRunning when another process holds it: see stayingHost
	}
	label := s.client
	if label == "" {
		label = "cli"
	}
	c, err := client.New(h.rec.Socket, client.Options{Label: label})
	if err != nil {
		return nil, nil, errors.Join(err, h.stop())
	}
	stop := func() error {
		c.CloseIdle()
		disarm := armInterrupts(context.Background()) // a second interrupt still exits while it closes
		defer disarm()
		if err := h.stop(); err != nil {
			return withCode(ExitFailed, fmt.Errorf("close the workspace's engine: %w", err))
		}
		return nil
	}
	return c, stop, nil
}

// copyWarnSize is [instances] warn_size of ws as the host starts (the
// default when the configuration cannot be read: it is said elsewhere).
func (s *streams) copyWarnSize(ws string) int64 {
	cfg, err := config.Load(s.loadOptions(ws))
	if err != nil {
		return config.DefaultWarnSize
	}
	return cfg.Instances.WarnSize
}
