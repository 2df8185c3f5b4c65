package core

import (
	"errors"
	"fmt"

	"github.com/atelier-studio/atelier/harness"
)

// ErrAgentEnv marks a Resolver's error about an agent's configured
// environment (AgentSettings.Env): a variable it takes from ours is unset.
// The agent's commands are refused rather than run without it.
var ErrAgentEnv = errors.New("the agent's environment cannot be made")

// DemoResolver knows only the demo agent. It is the resolver when nothing
// else is configured.
type DemoResolver struct {
	// Demo overrides the demo's pacing; nil uses harness.NewDemo().
	Demo *harness.Demo
}

// Resolve implements Resolver.
func (r DemoResolver) Resolve(agent string) (harness.Harness, AgentSettings, error) {
	if agent != "demo" {
		return nil, AgentSettings{}, fmt.Errorf("agent %q: %w", agent, ErrUnknownAgent)
	}
	d := r.Demo
	if d == nil {
		d = harness.NewDemo()
	}
	return d, AgentSettings{Approval: PolicyAsk}, nil
}

// MapResolver resolves agents from a fixed map, with default settings.
type MapResolver map[string]harness.Harness

// Resolve implements Resolver.
func (m MapResolver) Resolve(agent string) (harness.Harness, AgentSettings, error) {
	h, ok := m[agent]
	if !ok {
		return nil, AgentSettings{}, fmt.Errorf("agent %q: %w", agent, ErrUnknownAgent)
	}
	return h, AgentSettings{}, nil
}
