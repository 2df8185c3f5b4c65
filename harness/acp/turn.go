package acp

import (
	"context"
	"fmt"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// cancelGrace bounds how long a cancelled turn waits for the agent to end
// its prompt after session/cancel before the agent is killed.
const cancelGrace = 5 * time.Second

// Turn implements harness.Agent: one session/prompt.
func (a *Agent) Turn(ctx context.Context, req harness.TurnRequest, out harness.Emitter, host harness.Host) (harness.TurnResult, error) {
	res := harness.TurnResult{Resume: req.Resume}
	p, err := a.session(ctx, req.SessionID, host)
	if err != nil {
		return res, err
	}
	p.turnMu.Lock()
	defer p.turnMu.Unlock()
	v := newView(out, p.cl.terms.text)
	// The turn's end decides what a call reported ended afterwards was: a
	// cancel kills its terminals, so the agent may report "completed".
	v.turn = ctx
	p.cl.bind(&binding{ctx: ctx, host: host, view: v})
	defer p.cl.unbind()
	defer p.cl.terms.closeAll()

	fresh, err := a.openSession(ctx, p, req, host, v)
	if err != nil {
		if ctx.Err() != nil || p.dead() {
			a.drop(req.SessionID, p)
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, p.explain(err)
	}
	res.Resume = string(p.session)

	input := req.Input
	if fresh && req.Instructions != "" {
		input = req.Instructions + "\n\n" + input // ACP has no system prompt
	}
	type answer struct {
		r   acpsdk.PromptResponse
		err error
	}
	done := make(chan answer, 1)
	go func() {
		// The process's context, not the turn's: a cancelled turn is ended
		// with session/cancel, which the agent answers.
		r, err := p.conn.Prompt(p.life, acpsdk.PromptRequest{SessionId: p.session, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(input)}})
		done <- answer{r, err}
	}()
	select {
	case an := <-done:
		if an.err != nil {
			v.closeOpen("the agent failed", sessions.ToolError)
			if p.dead() {
				a.drop(req.SessionID, p)
			}
			return res, p.explain(fmt.Errorf("acp prompt: %w", an.err))
		}
		return a.finish(an.r, v, res)
	case <-ctx.Done():
		v.cancel()
		_ = p.conn.Cancel(context.Background(), acpsdk.CancelNotification{SessionId: p.session})
		select {
		case <-done:
		case <-time.After(cancelGrace):
			a.drop(req.SessionID, p) // it did not stop: end it
		}
		v.closeOpen("interrupted", sessions.ToolInterrupted)
		return res, ctx.Err()
	}
}

// finish maps the prompt's answer to the turn's result.
func (a *Agent) finish(r acpsdk.PromptResponse, v *view, res harness.TurnResult) (harness.TurnResult, error) {
	if r.Usage != nil {
		res.Usage = sessions.Usage{InputTokens: int64(r.Usage.InputTokens), OutputTokens: int64(r.Usage.OutputTokens)}
		v.usage(res.Usage)
	}
	v.closeOpen("the turn ended before this tool finished", sessions.ToolInterrupted)
	switch r.StopReason {
	case acpsdk.StopReasonMaxTokens:
		res.Stop = harness.StopMaxTokens
	case acpsdk.StopReasonMaxTurnRequests:
		res.Stop = harness.StopMaxTurns
	case acpsdk.StopReasonRefusal:
		return res, ErrRefused
	default:
		res.Stop = harness.StopEnd
	}
	return res, nil
}

// openSession gives the process its ACP session: the live one, the one the
// token names (session/load, its replayed history dropped) after a
// restart, or a new one. fresh reports a new session.
func (a *Agent) openSession(ctx context.Context, p *proc, req harness.TurnRequest, host harness.Host, v *view) (fresh bool, err error) {
	if p.session != "" {
		return false, nil
	}
	if req.Resume != "" {
		if !p.caps.LoadSession {
			v.notice("the agent cannot load its earlier session; starting a new one")
		} else {
			p.cl.setReplay(true)
			_, err := p.conn.LoadSession(ctx, acpsdk.LoadSessionRequest{SessionId: acpsdk.SessionId(req.Resume),
				Cwd: host.Workspace(), McpServers: []acpsdk.McpServer{}})
			p.cl.setReplay(false)
			if err == nil {
				p.session = acpsdk.SessionId(req.Resume)
				return false, nil
			}
			if ctx.Err() != nil || p.dead() {
				return false, err
			}
			v.notice(fmt.Sprintf("could not load the agent's session %s (%v); starting a new one", req.Resume, err))
		}
	}
	r, err := p.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: host.Workspace(), McpServers: []acpsdk.McpServer{}})
	if err != nil {
		return false, fmt.Errorf("acp session/new: %w", err)
	}
	if r.SessionId == "" {
		return false, fmt.Errorf("acp session/new: %w: no session id", ErrProtocol)
	}
	p.session = r.SessionId
	return true, nil
}
