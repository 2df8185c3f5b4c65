package codex

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// interruptGrace bounds how long a cancelled turn waits for Codex to
// confirm the interrupt before the process is killed.
const interruptGrace = 5 * time.Second

// Turn implements harness.Agent: one Codex turn on the session's thread.
func (a *Agent) Turn(ctx context.Context, req harness.TurnRequest, out harness.Emitter, host harness.Host) (harness.TurnResult, error) {
	res := harness.TurnResult{Resume: req.Resume}
	p, err := a.session(ctx, req.SessionID, host)
	if err != nil {
		return res, err
	}
	p.turnMu.Lock()
	defer p.turnMu.Unlock()
	if err := a.openThread(ctx, p, req, out, host); err != nil {
		if ctx.Err() != nil || !p.alive() {
			a.drop(req.SessionID, p)
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, p.explain(err)
	}
	res.Resume = p.thread()

	ts := newTurnState(out, p.thread(), host.Workspace())
	for _, m := range p.c.clear() {
		switch m.Method {
		case "warning", "configWarning", "deprecationNotice":
			_ = ts.notification(m) // what start-up had to say
		}
	}
	var tr turnResponse
	err = p.c.call(ctx, "turn/start", turnStartParams{ThreadID: ts.threadID, Input: textInput(req.Input), Model: a.model(req)}, &tr)
	if err != nil {
		if ctx.Err() != nil {
			// The turn's id is unknown, so it cannot be interrupted: end
			// the process; the thread resumes in the next one.
			a.drop(req.SessionID, p)
			return res, ctx.Err()
		}
		if !p.alive() {
			a.drop(req.SessionID, p)
		}
		return res, p.explain(err)
	}
	ts.turnID = tr.Turn.ID
	p.setActive(ts.turnID)
	defer p.setActive("")

	err = a.run(ctx, p, ts, host)
	res.Usage = ts.usage
	if err != nil {
		if !p.alive() || errors.Is(err, ErrProtocol) {
			a.drop(req.SessionID, p)
		}
		return res, err
	}
	res.Stop = harness.StopEnd
	return res, nil
}

func (a *Agent) model(req harness.TurnRequest) string { return firstNonEmpty(req.Model, a.s.Model) }

// openThread starts the process's thread, or resumes the session's thread
// after a restart. A thread that cannot be resumed is replaced by a new one,
// with a notice.
func (a *Agent) openThread(ctx context.Context, p *proc, req harness.TurnRequest, out harness.Emitter, host harness.Host) error {
	if p.thread() != "" {
		return nil
	}
	var r threadResponse
	if req.Resume != "" {
		err := p.c.call(ctx, "thread/resume", threadResumeParams{ThreadID: req.Resume, Cwd: host.Workspace(),
			ApprovalPolicy: a.policy(), Sandbox: a.sandbox(), Model: a.model(req), ExcludeTurns: true}, &r)
		if err == nil {
			p.mu.Lock()
			p.threadID = firstNonEmpty(r.Thread.ID, req.Resume)
			p.mu.Unlock()
			return nil
		}
		if ctx.Err() != nil || !p.alive() {
			return err
		}
		out.Notice(fmt.Sprintf("could not resume the Codex thread %s (%v); starting a new thread", req.Resume, err))
	}
	err := p.c.call(ctx, "thread/start", threadStartParams{Cwd: host.Workspace(), ApprovalPolicy: a.policy(),
		Sandbox: a.sandbox(), Model: a.model(req), DeveloperInstructions: req.Instructions}, &r)
	if err != nil {
		return err
	}
	if r.Thread.ID == "" {
		return fmt.Errorf("thread/start: %w: no thread id in the answer", ErrProtocol)
	}
	p.mu.Lock()
	p.threadID = r.Thread.ID
	p.mu.Unlock()
	return nil
}

// run reads the turn's notifications and answers its requests until
// turn/completed.
func (a *Agent) run(ctx context.Context, p *proc, ts *turnState, host harness.Host) error {
	for ts.done == nil {
		m, err := p.c.next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return a.interrupt(ctx, p, ts)
			}
			ts.closeOpen("the codex process ended", sessions.ToolError)
			return p.explain(fmt.Errorf("codex turn: %w", err))
		}
		if m.isRequest() {
			if err := ts.request(ctx, p.c, host, m); err != nil {
				if ctx.Err() != nil {
					return a.interrupt(ctx, p, ts)
				}
				ts.closeOpen("the codex process ended", sessions.ToolError)
				return p.explain(fmt.Errorf("codex turn: %w", err))
			}
			continue
		}
		if err := ts.notification(m); err != nil {
			ts.closeOpen("codex sent a malformed message", sessions.ToolError)
			return p.explain(err)
		}
	}
	switch ts.done.Status {
	case "failed":
		msg := "the turn failed"
		if ts.done.Error != nil && ts.done.Error.Message != "" {
			msg = ts.done.Error.Message
		} else if ts.failure != "" {
			msg = ts.failure
		}
		ts.closeOpen(msg, sessions.ToolError)
		if ts.unauthorized || ts.done.Error.unauthorized() {
			return fmt.Errorf("%w: %w: %s; %s", ErrNotLoggedIn, ErrTurnFailed, msg, LoginHint)
		}
		return fmt.Errorf("%w: %s", ErrTurnFailed, msg)
	case "interrupted":
		ts.out.Notice("codex interrupted the turn")
	}
	ts.closeOpen("the turn ended before this tool finished", sessions.ToolInterrupted)
	return nil
}

// interrupt stops a turn whose ctx ended: turn/interrupt, then the wait
// for turn/completed, answering what Codex still asks with "cancel". If
// Codex does not confirm in time the process is killed. Every open tool
// part is closed as interrupted, and ctx's error returned.
func (a *Agent) interrupt(ctx context.Context, p *proc, ts *turnState) error {
	ictx, cancel := context.WithTimeout(context.Background(), interruptGrace)
	defer cancel()
	err := p.c.call(ictx, "turn/interrupt", turnInterruptParams{ThreadID: ts.threadID, TurnID: ts.turnID}, nil)
	for err == nil && ts.done == nil {
		var m message
		if m, err = p.c.next(ictx); err != nil {
			break
		}
		if m.isRequest() {
			_ = p.c.respond(m.ID, approvalResponse{Decision: "cancel"})
			continue
		}
		_ = ts.notification(m)
	}
	if ts.done == nil {
		p.kill()
	}
	ts.closeOpen("interrupted", sessions.ToolInterrupted)
	return ctx.Err()
}
