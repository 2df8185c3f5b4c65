package scripted

import (
	"context"
	"sync"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// Step is one scripted model call (or, for Agent, one scripted turn).
type Step struct {
	Reasoning string
	Text      string
	Calls     []harness.ToolCall
	Stop      harness.StopReason
	Usage     sessions.Usage
	Err       error
	// Gate, when set, holds the step after its output until the gate is
	// closed or the context ends: the test decides when the step returns.
	Gate chan struct{}
	// Approvals and Question are asked of the Host (Agent only), before
	// the results of Calls are reported.
	Approvals []harness.ApprovalRequest
	Question  string
	// Resume is the agent's session token the turn reports (Agent only).
	Resume string
}

// Model is a scripted harness.Model. When the script runs out it ends each
// further step with "done".
type Model struct {
	Script []Step
	Cap    harness.Caps

	mu   sync.Mutex
	next int
	reqs []harness.StepRequest
}

// Name implements harness.Harness.
func (m *Model) Name() string { return "scripted" }

// Caps implements harness.Harness.
func (m *Model) Caps() harness.Caps {
	if m.Cap.Boundary == "" {
		return harness.Caps{Boundary: harness.StepBoundary, Resume: true}
	}
	return m.Cap
}

// Requests returns the step requests received so far.
func (m *Model) Requests() []harness.StepRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]harness.StepRequest(nil), m.reqs...)
}

func (m *Model) pop() Step {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next >= len(m.Script) {
		return Step{Text: "done", Stop: harness.StopEnd}
	}
	s := m.Script[m.next]
	m.next++
	return s
}

// Step implements harness.Model.
func (m *Model) Step(ctx context.Context, req harness.StepRequest, out harness.Emitter) (harness.StepResult, error) {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	s := m.pop()
	emit(s, out)
	for _, c := range s.Calls {
		out.ToolStart(c.ID, c.Name)
		out.ToolInput(c.ID, string(c.Input))
	}
	if err := hold(ctx, s.Gate); err != nil {
		return harness.StepResult{}, err
	}
	if s.Err != nil {
		return harness.StepResult{}, s.Err
	}
	stop := s.Stop
	if stop == "" {
		stop = harness.StopEnd
		if len(s.Calls) > 0 {
			stop = harness.StopToolUse
		}
	}
	return harness.StepResult{ToolCalls: s.Calls, Stop: stop, Usage: s.Usage}, nil
}

func emit(s Step, out harness.Emitter) {
	if s.Reasoning != "" {
		out.Reasoning(s.Reasoning)
	}
	if s.Text != "" {
		out.Text(s.Text)
	}
	if s.Usage != (sessions.Usage{}) {
		out.Usage(s.Usage)
	}
}

func hold(ctx context.Context, gate chan struct{}) error {
	if gate == nil {
		return ctx.Err()
	}
	select {
	case <-gate:
		return ctx.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Agent is a scripted harness.Agent: each Step is a whole turn that runs
// its own tools, asking the Host for its approvals and question.
type Agent struct {
	Script []Step
	Cap    harness.Caps

	mu   sync.Mutex
	next int
	reqs []harness.TurnRequest
}

// Name implements harness.Harness.
func (a *Agent) Name() string { return "scripted-agent" }

// Caps implements harness.Harness.
func (a *Agent) Caps() harness.Caps {
	if a.Cap.Boundary == "" {
		return harness.Caps{Boundary: harness.TurnBoundary}
	}
	return a.Cap
}

// Requests returns the turn requests received so far.
func (a *Agent) Requests() []harness.TurnRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]harness.TurnRequest(nil), a.reqs...)
}

// Turn implements harness.Agent.
func (a *Agent) Turn(ctx context.Context, req harness.TurnRequest, out harness.Emitter, host harness.Host) (harness.TurnResult, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	var s Step
	if a.next < len(a.Script) {
		s = a.Script[a.next]
		a.next++
	} else {
		s = Step{Text: "done", Stop: harness.StopEnd}
	}
	a.mu.Unlock()
	emit(s, out)
	denied := map[string]string{}
	for _, ap := range s.Approvals {
		ans, err := host.Approve(ctx, ap)
		if err != nil {
			return harness.TurnResult{}, err
		}
		if !ans.Allowed {
			denied[ap.ToolCall] = "denied: " + ans.Message
		}
	}
	if s.Question != "" {
		ans, err := host.Ask(ctx, s.Question, nil, "")
		if err != nil {
			return harness.TurnResult{}, err
		}
		out.Text("answer: " + ans)
	}
	for _, c := range s.Calls {
		out.ToolStart(c.ID, c.Name)
		out.ToolInput(c.ID, string(c.Input))
	}
	if err := hold(ctx, s.Gate); err != nil {
		return harness.TurnResult{}, err
	}
	for _, c := range s.Calls {
		if msg, ok := denied[c.ID]; ok {
			out.ToolResult(c.ID, msg, sessions.ToolDenied)
		} else {
			out.ToolResult(c.ID, "ok", sessions.ToolDone)
		}
	}
	if s.Err != nil {
		return harness.TurnResult{}, s.Err
	}
	stop := s.Stop
	if stop == "" {
		stop = harness.StopEnd
	}
	return harness.TurnResult{Stop: stop, Usage: s.Usage, Resume: s.Resume}, nil
}
