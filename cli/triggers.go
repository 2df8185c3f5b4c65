package cli

import (
	"fmt"
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
// and run log only).
func hostTriggers(cfg func() *config.Config, logf func(string, ...any), wfs *hostWorkflows) func(*core.Engine) (host.Companion, error) {
	return func(e *core.Engine) (host.Companion, error) {
		c := cfg()
		if c == nil || len(c.Triggers) == 0 {
			return triggerCompanion{}, nil
		}
		opts := trigger.Options{Logf: logf}
		if wfs != nil {
			opts.Workflows = wfs
		}
		r, err := trigger.New(e, c.Triggers, opts)
		if err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("the workspace's triggers: %w", err))
		}
		if err := r.Start(); err != nil {
			return nil, fmt.Errorf("start the workspace's triggers: %w", err)
		}
		return triggerCompanion{r: r, keep: trigger.KeepAlive(c.Triggers)}, nil
	}
}

// triggerCompanion is a running trigger runner as a host's companion.
type triggerCompanion struct {
	r    *trigger.Runner
	keep []string
}

func (t triggerCompanion) KeepAlive() []string { return t.keep }

func (t triggerCompanion) Stop() error {
	if t.r == nil {
		return nil
	}
	return t.r.Stop()
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
