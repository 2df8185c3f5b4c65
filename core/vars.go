package core

import (
	"maps"

	"github.com/atelier-studio/atelier/harness"
)

// EnvResolver is a Resolver that can resolve an agent as a client's
// environment makes it. An engine host serves clients started from other
// shells: each create or send hands over the variables the session's agent
// reads (its key, the "${NAME}" its configuration names, its CLI's own), so
// a key exported in the client's shell reaches the agent as it would if the
// client ran the engine itself. The engine keeps them in memory only, per
// session, and uses them wherever it resolves the session's agent.
type EnvResolver interface {
	Resolver
	ResolveEnv(agent string, env map[string]string) (harness.Harness, AgentSettings, error)
}

// resolveWith resolves agent with the variables a client handed over; with
// none, or a resolver that takes none, as the engine's own environment
// makes it.
func (e *Engine) resolveWith(agent string, vars map[string]string) (harness.Harness, AgentSettings, error) {
	if r, ok := e.opts.Agents.(EnvResolver); ok && len(vars) > 0 {
		return r.ResolveEnv(agent, vars)
	}
	return e.opts.Agents.Resolve(agent)
}

// agentLocked resolves a session's agent with its client's variables.
func (l *live) agentLocked() (harness.Harness, AgentSettings, error) {
	e := l.e
	return e.resolveWith(l.rec.Agent, l.vars)
}

// HandEnv gives a session the variables its client's environment holds for
// its agent (see EnvResolver), in place of those handed earlier; from its
// next turn on, its agent is resolved with them. An empty map changes
// nothing: a client whose shell exports nothing keeps what another handed
// over. They are never written to the store: a session recovered by
// another host runs with that host's environment until a client hands them
// again.
func (e *Engine) HandEnv(id string, vars map[string]string) error {
	if len(vars) == 0 {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return err
	}
	l.vars = maps.Clone(vars)
	return nil
}

// agentOfLocked is the harness that runs (or last ran) the session's
// turns: the one to close its process in, even if the variables changed
// since.
func (l *live) agentOfLocked() (harness.Harness, bool) {
	if l.agentH != nil {
		return l.agentH, true
	}
	h, _, err := l.agentLocked()
	return h, err == nil
}

// useAgentLocked records h as the harness of the session's turns. A
// session whose variables changed since its last turn (another key) gets
// another harness: its process in the previous one is ended, so that an
// agent CLI never runs twice for one session.
func (l *live) useAgentLocked(h harness.Harness) {
	e := l.e
	prev := l.agentH
	l.agentH = h
	if prev == nil || prev == h {
		return
	}
	if c, ok := prev.(harness.Closer); ok {
		e.closeAgentIn(c, l.rec.ID)
	}
}
