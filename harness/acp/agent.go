package acp

import (
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/procpool"
)

// Settings configure the adapter; the lead wires them from config.Agent.
// ACP has no common way to pass a model, a base URL or a key, so those go
// in Env under the agent's own variable names.
type Settings struct {
	// Command is the agent's command line, e.g. ["gemini", "--acp"]. It is
	// required.
	Command []string
	// Env holds extra KEY=VALUE variables for the agent (its keys, base
	// URLs, telemetry switches).
	Env []string
	// Name is the harness name shown for the agent; "" means "acp".
	Name string
	// StartTimeout bounds the start-up handshake; zero means a minute.
	StartTimeout time.Duration
}

// Agent is the acp harness: one agent process and ACP session per Atelier
// session, kept between turns. Safe for concurrent use by many sessions.
type Agent struct {
	s     Settings
	procs *procpool.Pool[*proc] // by Atelier session id
}

var (
	_ harness.Agent  = (*Agent)(nil)
	_ harness.Closer = (*Agent)(nil)
)

// New returns the acp harness with its settings. It starts nothing: the
// agent starts at a session's first turn.
func New(s Settings) *Agent {
	return &Agent{s: s, procs: procpool.New(func(p *proc) bool { return !p.dead() }, (*proc).kill)}
}

// Name implements harness.Harness.
func (a *Agent) Name() string {
	if a.s.Name != "" {
		return a.s.Name
	}
	return "acp"
}

// Caps implements harness.Harness. Steers wait for the next turn (ACP has
// no way in mid-turn); the agent asks for each file operation and command,
// so leases are taken per request, not for the turn; a session resumes
// after a restart with session/load where the agent offers it, else in a
// new agent session.
func (a *Agent) Caps() harness.Caps {
	return harness.Caps{Boundary: harness.TurnBoundary, Resume: true}
}

func (a *Agent) startTimeout() time.Duration {
	if a.s.StartTimeout > 0 {
		return a.s.StartTimeout
	}
	return time.Minute
}

// CloseSession implements harness.Closer: it ends the session's agent.
func (a *Agent) CloseSession(sessionID string) error {
	if p, ok := a.procs.Take(sessionID); ok {
		p.close()
	}
	return nil
}

// Close ends every session's agent at once, as CloseSession does each, for
// an engine shutting down; later turns fail.
func (a *Agent) Close() error {
	a.procs.Close((*proc).close)
	return nil
}
