package core

import (
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// Kinds of agent, in AgentContext.
const (
	// ContextModel is a model the engine drives in its own tool loop: it
	// is given the instructions, the tools and the history below.
	ContextModel = "model"
	// ContextAgent is an agent program (Claude Code, Codex, an ACP agent)
	// that keeps its own tools and history: it is given the instructions
	// and each new input.
	ContextAgent = "agent"
)

// AgentContext is what a session's agent is given at its next step: what
// `atelier sessions context` prints, so an operator can see why an agent
// does what it does without reading the wire.
type AgentContext struct {
	Session      string             `json:"session"`
	Agent        string             `json:"agent"`
	Kind         string             `json:"kind"`
	Model        string             `json:"model,omitempty"` // "" is the agent's default
	Instructions string             `json:"instructions"`
	Tools        []harness.ToolSpec `json:"tools"`
	// Messages and Bytes measure the history the agent is shown (after a
	// compaction, the task, the summary and what follows); Compacted says
	// whether a summary stands in for older messages.
	Messages  int  `json:"messages"`
	Bytes     int  `json:"bytes"`
	Compacted bool `json:"compacted"`
	// Next is the input the next turn starts with, when one waits: the
	// task of a session that never started, or the first queued prompt.
	Next string `json:"next,omitempty"`
}

// Context returns what the session's agent is given at its next step.
func (e *Engine) Context(id string) (AgentContext, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return AgentContext{}, err
	}
	if err := l.ensureMessages(); err != nil {
		return AgentContext{}, err
	}
	h, set, err := l.agentLocked()
	if err != nil {
		return AgentContext{}, err
	}
	c := AgentContext{Session: l.rec.ID, Agent: l.rec.Agent, Kind: ContextAgent, Model: l.rec.Model,
		Instructions: set.Instructions, Tools: []harness.ToolSpec{}}
	if c.Model == "" {
		c.Model = set.Model
	}
	if _, ok := h.(harness.Model); ok {
		c.Kind = ContextModel
		c.Tools = specsOf(l.toolsFor(set))
	}
	for _, m := range l.historyLocked() {
		c.Messages++
		c.Bytes += len(m.Text())
		c.Compacted = c.Compacted || m.Role == sessions.User && m.ID != "" && l.isSummaryStandIn(m.ID)
	}
	switch {
	case l.rec.Status == sessions.Created:
		c.Next = l.rec.Instructions
	case len(l.queue) > 0:
		c.Next = l.queue[0].Text
	}
	return c, nil
}

// isSummaryStandIn says whether the message id is a summary's (a
// compaction's, shown to the agent as the user's message).
func (l *live) isSummaryStandIn(id string) bool {
	i, ok := l.msgIdx[id]
	return ok && l.msgs[i].Role == sessions.Summary
}
