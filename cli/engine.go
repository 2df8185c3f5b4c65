package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/redact"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/terminal/docker"
)

// env is what every command reads of the outside world, passed explicitly
// so tests can set it.
type env struct {
	getenv func(string) string
	// environ lists the environment (KEY=VALUE); nil means os.Environ.
	environ func() []string
	// userConfig replaces $XDG_CONFIG_HOME/atelier/config.toml (tests).
	userConfig string
	// secrets redacts the secret values of the environment and the
	// configuration; openEngine sets it once it has read the configuration.
	secrets *redact.Redactor
}

// list returns the environment as KEY=VALUE entries.
func (e env) list() []string {
	if e.environ != nil {
		return e.environ()
	}
	return os.Environ()
}

// redactor is what the command redacts from what it prints: the secrets
// openEngine found, or, before it ran, those of the environment alone.
func (s *streams) redactor() *redact.Redactor {
	if s.env.secrets != nil {
		return s.env.secrets
	}
	return redact.New(redact.Environ(s.env.list()))
}

func (s *streams) loadOptions(workspace string) config.LoadOptions {
	return config.LoadOptions{Workspace: workspace, UserConfigPath: s.env.userConfig, Env: s.env.getenv}
}

// loadConfig reads the configuration for a workspace and prints its notices
// (an untrusted .atelier.toml) to w.
func (s *streams) loadConfig(workspace string, w io.Writer) (*config.Config, error) {
	cfg, err := config.Load(s.loadOptions(workspace))
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	for _, n := range cfg.Notices {
		fmt.Fprintln(w, "atelier:", n.String())
	}
	return cfg, nil
}

// workspaceDir checks that a workspace folder exists and returns its
// absolute path.
func workspaceDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usageErr("workspace %s: %v", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", usageErr("workspace %s: %v", dir, err)
	}
	if !fi.IsDir() {
		return "", usageErr("workspace %s is not a folder", dir)
	}
	return abs, nil
}

// openEngine opens the engine on a workspace with the configured agents. A
// running engine (passive false) is the workspace's one: only a host opens
// it (serve, or a command or studio hosting in-process). A passive engine
// (short commands with no host to reach) reads, and writes only while no
// engine runs the workspace.
func (s *streams) openEngine(workspace string, passive bool) (*core.Engine, *config.Config, *agents, error) {
	if s.engineURL() != "" {
		// The sessions are another machine's: never this folder's store.
		return nil, nil, nil, s.notRemote()
	}
	ws, err := workspaceDir(workspace)
	if err != nil {
		return nil, nil, nil, err
	}
	cfg, err := s.loadConfig(ws, s.err)
	if err != nil {
		return nil, nil, nil, err
	}
	ag := newAgents(cfg, s.env.getenv)
	if s.demo != nil {
		ag.demo = s.demo
	}
	s.env.secrets = redact.New(ag.secrets(s.env.list()))
	ag.red, ag.environ = s.env.secrets, s.env.list
	client := s.client
	if client == "" {
		client = "cli"
	}
	var rule func(tool, subject string) (string, bool)
	if store, err := s.loadOptions(ws).RulesStore(); err == nil {
		rule = (&wsRules{store: store, workspace: ws}).allow
	}
	e, err := core.Open(ws, core.Options{Passive: passive, Agents: ag, DefaultAgent: cfg.DefaultAgent(),
		WorkspaceRule: rule,
		Client:        client, Workers: cfg.Engine.Workers, Redactor: s.env.secrets,
		StuckAfter: cfg.Engine.StuckAfter, CleanupContainers: !passive,
		Containers:     docker.NewSessions(docker.EngineOptions{}, docker.Config{}),
		HistoryOptions: history.Options{MaxFileSize: cfg.History.MaxFileSize, ExtraSecretPatterns: cfg.History.SecretPatterns},
		Instances: core.InstanceOptions{Root: cfg.Instances.Root, Include: cfg.Instances.Include, Omit: cfg.Instances.Omit,
			Setup: cfg.Instances.Setup, WarnSize: cfg.Instances.WarnSize}})
	if err != nil {
		return nil, nil, nil, err
	}
	if n := e.StateNotice(); n != "" {
		// A foreign, newer or unwritable state: say so before anything else.
		fmt.Fprintln(s.err, "atelier: notice:", n)
	}
	return e, cfg, ag, nil
}

// closeEngine closes the engine a command opened. A failure to close (a
// record the engine could not write) fails the command too: use it as
// `defer closeEngine(e, &err)` in a function with a named error result.
//
// A second interrupt ends the process while the engine closes (Close waits
// for the turns in flight and their history commits): see armInterrupts.
func closeEngine(e *core.Engine, err *error) {
	disarm := armInterrupts(context.Background()) // signals counted before still count
	cerr := e.Close()
	disarm()
	if cerr == nil {
		return
	}
	cerr = withCode(ExitFailed, fmt.Errorf("close the workspace's engine: %w", cerr))
	if *err == nil || errors.Is(*err, errShown) {
		// Nothing else to say, or only an exit code: the close is the news.
		*err = cerr
		return
	}
	*err = errors.Join(*err, cerr)
}
