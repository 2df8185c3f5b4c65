package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/tui"
)

// runStudio opens the studio on a workspace. By default it attaches to the
// workspace's engine host, starting a detached one when none runs (in the
// background: the first frame does not wait for it), so quitting the
// studio never interrupts a turn. In-process, it hosts the engine itself
// and serves the socket while it lives, like `atelier serve`.
func runStudio(ctx context.Context, dir string, inProcess bool, s *streams) error {
	s.client = host.StudioLabel
	if s.engineURL() != "" {
		if inProcess {
			return usageErr("--in-process hosts this machine's workspace: it does not go with --engine %s", s.engineURL())
		}
		return runStudioAttached(ctx, s)
	}
	ws, err := workspaceDir(dir)
	if err != nil {
		return err
	}
	if inProcess {
		return runStudioInProcess(ctx, dir, ws, s)
	}
	cfg, err := s.loadConfig(ws, s.err)
	if err != nil {
		return err
	}
	p, err := host.Locate(ws)
	if err != nil {
		return withCode(ExitFailed, err)
	}
	c, err := client.New(p.Socket, client.Options{Label: host.StudioLabel})
	if err != nil {
		return withCode(ExitFailed, err)
	}
	remote := attach.NewRemote(attach.RemoteOptions{
		Workspace: ws, Client: c, Env: s.handedEnv(ws),
		Ensure: func(ctx context.Context) (string, error) { return s.ensureHost(ctx, ws, c, cfg) },
		History: func() (*history.History, error) {
			return history.Open(ws, history.Options{MaxFileSize: cfg.History.MaxFileSize, ExtraSecretPatterns: cfg.History.SecretPatterns})
		},
	})
	defer remote.Close()
	return tui.Run(ctx, tui.Options{Engine: remote, Attached: true, Workspace: dir, Agents: s.agentNames(cfg), Config: cfg,
		UIStateFile: uiStateFile(), Rules: s.rulesStore(ws),
		Destroy: func() error { return destroyHosted(ctx, ws, remote, s) }})
}

// agentNames are the agents the new-session form offers, the default first.
func (s *streams) agentNames(cfg *config.Config) []string {
	def := cfg.DefaultAgent()
	names := []string{def}
	for _, a := range newAgents(cfg, s.env.getenv).list() {
		if a.Available && a.Name != def {
			names = append(names, a.Name)
		}
	}
	return names
}

// ensureHost makes sure the workspace's host answers on c, starting a
// detached one when none does; what it returns is for the operator (a
// host just started, a host of another build).
func (s *streams) ensureHost(ctx context.Context, ws string, c *client.Client, cfg *config.Config) (string, error) {
	hctx, cancel := context.WithTimeout(ctx, hostProbeTimeout)
	h, err := c.Health(hctx)
	cancel()
	if err == nil {
		return host.BuildNotice(h.Version, version()), nil
	}
	st, started, err := s.detachHost(ctx, ws, cfg)
	if err != nil || !started {
		return "", err // none, or another client started it meanwhile
	}
	return fmt.Sprintf("started the workspace's engine host (process %d): its sessions run on when the studio closes", st.PID), nil
}

// destroyHosted removes the workspace's state from an attached studio: the
// studio stops following (so nothing starts a host again), the host stops,
// and an engine of this process destroys what it left.
func destroyHosted(ctx context.Context, ws string, remote *attach.Remote, s *streams) (err error) {
	remote.Close()
	sctx, cancel := context.WithTimeout(ctx, host.DefaultStopTimeout)
	defer cancel()
	if _, err := host.Stop(sctx, ws); err != nil && !errors.Is(err, host.ErrNotRunning) {
		return err
	}
	e, _, _, err := s.openEngine(ws, true)
	if err != nil {
		return err
	}
	defer closeEngine(e, &err)
	return e.Destroy()
}

// runStudioInProcess hosts the engine in this process for the studio's
// life, serving the socket so other clients attach to it. Quitting while
// sessions run asks what becomes of them: a hand-over starts a detached
// host once this one has let go.
func runStudioInProcess(ctx context.Context, dir, ws string, s *streams) (err error) {
	o, err := s.hostInProcess(ctx, ws, true)
	if err != nil {
		var running *host.ErrRunning
		if errors.As(err, &running) {
			return withCode(ExitFailed, fmt.Errorf("%w: open the studio without --in-process to attach to it, or stop it with `atelier serve --stop`", err))
		}
		return err
	}
	leave := tui.LeaveStop
	defer o.n.Close()
	runErr := tui.Run(ctx, tui.Options{Engine: attach.LocalHost(o.eng, attach.LocalOptions{Notifier: o.n, Triggers: o.cfg.Triggers,
		CopyWarnSize: s.copyWarnSize(ws), Workflows: o.wfs.runner()}), Workspace: dir, Agents: s.agentNames(o.cfg), Files: attach.LocalFiles(o.eng.Files()),
		UIStateFile: uiStateFile(), Rules: s.rulesStore(ws),
		Config: o.cfg, Destroy: o.eng.Destroy, Leave: &leave})
	// Closing the host closes the engine: running turns stop at a safe
	// point, resumable by the next engine on the workspace.
	disarm := armInterrupts(context.Background())
	herr := o.stop()
	disarm()
	if herr != nil {
		herr = withCode(ExitFailed, fmt.Errorf("close the workspace's engine: %w", herr))
	}
	if runErr != nil || herr != nil || leave != tui.LeaveHandOver {
		return errors.Join(runErr, herr)
	}
	st, err := startDetached(ctx, s.hostBinary, ws, &serveOptions{idleExit: o.cfg.Engine.IdleExit})
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("hand the sessions over to a detached host: %w (they resume when the studio opens again)", err))
	}
	fmt.Fprintf(s.err, "handed the running sessions to a detached host (process %d) · `atelier` reattaches · `atelier serve --stop` stops them\n", st.PID)
	return nil
}

// uiStateFile is where the studio keeps the operator's choices; without
// a usable state folder it remembers nothing.
func uiStateFile() string {
	p, err := tui.UIStateFile()
	if err != nil {
		return ""
	}
	return p
}

// rulesStore is the user's store of workspace rules, nil without a
// configuration folder.
func (s *streams) rulesStore(ws string) *config.RulesStore {
	store, err := s.loadOptions(ws).RulesStore()
	if err != nil {
		return nil
	}
	return store
}
