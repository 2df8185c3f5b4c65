package cli

import (
	"fmt"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/trigger"
	"github.com/atelier-studio/atelier/trigger/state"
)

// Every host of this binary (a detached or foreground `atelier serve`,
// the studio's --in-process host, a command hosting for itself) runs the
// workspace's triggers beside its engine: hostTriggers is the one place
// they are started, as the host's Companion.

// hostTriggers returns the host's companion: the trigger runner over the
// triggers of the configuration the host's Open read (cfg is called once
// the engine is open). logf is the host's log (nil: the engine's notices
// and run log only). A reload of the configuration re-arms it (rearm).
func hostTriggers(cfg func() *config.Config, logf func(string, ...any), wfs *hostWorkflows) func(*core.Engine) (host.Companion, error) {
	return func(e *core.Engine) (host.Companion, error) {
		tc := &triggerCompanion{e: e, opts: trigger.Options{Logf: logf}}
		if wfs != nil {
			tc.opts.Workflows = wfs
		}
		c := cfg()
		if c == nil || len(c.Triggers) == 0 {
			return tc, nil
		}
		r, err := trigger.New(e, c.Triggers, tc.opts)
		if err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("the workspace's triggers: %w", err))
		}
		if err := r.Start(); err != nil {
			return nil, fmt.Errorf("start the workspace's triggers: %w", err)
		}
		tc.r, tc.keep = r, trigger.KeepAlive(c.Triggers)
		return tc, nil
	}
}

// triggerCompanion is a running trigger runner as a host's companion.
type triggerCompanion struct {
	e    *core.Engine
	opts trigger.Options

	mu   sync.Mutex // guards what follows: a reload re-arms while the host runs
	r    *trigger.Runner
	keep []string
}

func (t *triggerCompanion) KeepAlive() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.keep
}

func (t *triggerCompanion) Stop() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.r == nil {
		return nil
	}
	err := t.r.Stop()
	t.r = nil
	return err
}

// rearm replaces the runner with one of triggers: a new trigger arms, a
// removed one disarms. The triggers are checked first: when the new set
// cannot run, the old one keeps running. The old runner stops between two
// firings (Stop waits for one in flight); firings are recorded, so the
// new runner never starts one the old one started.
func (t *triggerCompanion) rearm(triggers []config.Trigger) error {
	var next *trigger.Runner
	if len(triggers) > 0 {
		r, err := trigger.New(t.e, triggers, t.opts)
		if err != nil {
			return err
		}
		next = r
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.r != nil {
		if err := t.r.Stop(); err != nil {
			t.r = nil
			return fmt.Errorf("stop the triggers armed before: %w", err)
		}
	}
	t.r, t.keep = nil, nil
	if next == nil {
		return nil
	}
	if err := next.Start(); err != nil {
		// Start let go of what it had opened.
		return fmt.Errorf("arm the triggers: %w", err)
	}
	t.r, t.keep = next, trigger.KeepAlive(triggers)
	return nil
}

// hostTriggerList lists the triggers of the configuration the host opened
// with (cfg, read once the engine is open), as GET /v1/triggers answers.
func hostTriggerList(ws string, cfg func() *config.Config) func() ([]state.Trigger, error) {
	return func() ([]state.Trigger, error) {
		var ts []config.Trigger
		if c := cfg(); c != nil {
			ts = c.Triggers
		}
		return trigger.List(ws, ts, time.Now())
	}
}
