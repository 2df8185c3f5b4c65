package core

import (
	"context"
	"fmt"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// outcome is how a turn left the floor when it was not cancelled.
type outcome struct {
	stop   harness.StopReason
	paused bool
	usage  sessions.Usage
}

// startTurnLocked starts a turn goroutine. A non-nil in opens a new turn
// with its text as the user's message (and, with an output schema, the
// guidance derived from it); nil continues the current turn (after a
// pause or a restart).
func (l *live) startTurnLocked(in *turnInput) error {
	e := l.e
	if err := l.canStartTurnLocked(); err != nil {
		return err
	}
	if !canMove(l.rec.Status, sessions.Running) && l.rec.Status != sessions.Running {
		return &TransitionError{Session: l.rec.ID, Status: l.rec.Status, Action: "start a turn"}
	}
	if in != nil {
		l.rec.Turns++
		l.startLogged = false // a new turn: its start is not logged yet
		l.rec.TurnWrote, l.rec.TurnRanExec = nil, false
		l.rec.TurnOutputSchema = in.output
		if err := l.userPartsLocked(inputParts(in), in.from); err != nil {
			return err
		}
	}
	l.setStatusLocked(sessions.Running)
	l.rec.SubState, l.rec.BetweenTurns = sessions.Resumable, false
	l.lastProgress, l.lastCall, l.repeats = e.opts.Now(), "", 0
	l.saveLocked()
	if l.storeErr != nil {
		return l.storeErr
	}
	ctx, cancel := context.WithCancelCause(e.ctx)
	l.inTurn, l.cancel, l.turnDone, l.intent = true, cancel, make(chan struct{}), intentNone
	if in != nil {
		e.clearMarksLocked() // the marks are what changed since the last turn started
	}
	l.pauseAsked = make(chan struct{})
	if l.pause != nil {
		l.askPauseLocked()
	}
	e.wg.Add(1)
	go l.runTurn(ctx, l.turnDone)
	e.wakeWatch()
	return nil
}

// canStartTurnLocked says why no turn may start now, if so.
func (l *live) canStartTurnLocked() error {
	e := l.e
	switch {
	case l.inTurn:
		return &TransitionError{Session: l.rec.ID, Status: l.rec.Status, Action: "start a turn", Why: "a turn is in flight"}
	case e.closed || e.opts.Passive:
		return ErrClosed
	case l.storeErr != nil:
		return l.storeErr
	}
	return nil
}

func (l *live) runTurn(ctx context.Context, done chan struct{}) {
	e := l.e
	defer e.wg.Done()
	defer close(done)
	var out outcome
	err := e.acquire(ctx)
	held := err == nil
	if err == nil {
		l.setSlot(true)
		out, err = l.turnBody(ctx)
		held = l.slotHeld()
	}
	if held {
		e.release()
	}
	e.mu.Lock()
	l.finishTurnLocked(ctx, out, err)
	e.mu.Unlock()
}

// turnBody runs the turn on its harness. The worker slot is held on entry
// and exit; parks release it in between.
func (l *live) turnBody(ctx context.Context) (outcome, error) {
	e := l.e
	// A new instance is set up before its first turn, and before its
	// history's first snapshot, so that what the setup makes is the
	// instance's base, not the turn's work.
	if err := l.setupInstance(ctx); err != nil {
		return outcome{}, err
	}
	// A turn's changes are measured against the history's snapshot of the
	// workspace: wait until it exists (it is made once, at first open).
	// Before a model's first step is a step boundary, where its pause
	// applies: one asked for while the operator commit runs pauses the
	// turn then, with nothing of it run, instead of after the commit.
	if !e.opts.NoHistory && e.hist.workspace() != nil {
		if !e.operatorCommit(ctx, l, l.pauseCut()) {
			return outcome{paused: true}, nil
		}
	}
	e.mu.Lock()
	l.rec.SubState = sessions.Active
	l.saveLocked()
	agent, turn := l.rec.Agent, l.rec.Turns
	if l.startLogged {
		// A turn resumed after a crash or a quit: its recover line says so.
		l.startLogged = false
	} else {
		l.appendTurnLocked(sessions.TurnEvent{Time: e.opts.Now(), Turn: turn, Kind: "start", Host: e.runner()})
	}
	serr := l.storeErr
	h, settings, err := l.agentLocked()
	if err == nil {
		l.useAgentLocked(h)
	}
	e.mu.Unlock()
	if serr != nil {
		return outcome{}, serr
	}
	if err != nil {
		return outcome{}, err
	}
	switch h := h.(type) {
	case harness.Model:
		return l.modelLoop(ctx, h, settings)
	case harness.Agent:
		return l.agentTurn(ctx, h, settings)
	}
	return outcome{}, fmt.Errorf("agent %s: harness %s is neither a model nor an agent", agent, h.Name())
}

// boundaryLocked applies what waits for a step boundary: a pause request
// (reported true), every queued steer, and the model and policy changes
// ahead of the first queued prompt, in order. A steer goes at the next
// step whatever is queued before it, as its receipt said; prompts (and
// compact, clear) wait for the turn's end, and a change queued behind one
// applies with it, after this turn: the rest of the queue keeps its order.
// A held input (its key still settling) stays where it is and holds back
// the changes behind it.
func (l *live) boundaryLocked() (pause bool) {
	if l.pause != nil {
		return true
	}
	var now, rest []sessions.Control
	blocked := false
	for _, c := range l.queue {
		switch {
		case l.held[c.ID]:
			blocked = true
			rest = append(rest, c)
		case c.Kind == sessions.CtlSteer:
			now = append(now, c)
		case blocked || c.Kind == sessions.CtlPrompt || c.Kind == sessions.CtlCompact || c.Kind == sessions.CtlClear:
			blocked = true
			rest = append(rest, c)
		default:
			now = append(now, c)
		}
	}
	l.queue = rest
	for _, c := range now {
		l.applyQueuedLocked(c)
	}
	return false
}

// applyQueuedLocked applies one queued input at a boundary and records it.
func (l *live) applyQueuedLocked(c sessions.Control) {
	switch c.Kind {
	case sessions.CtlSteer, sessions.CtlPrompt:
		if err := l.userMessageLocked(c.Text, c.ID); err != nil {
			return // the session failed with the error; the input stays unsettled
		}
	case sessions.CtlModel:
		l.rec.Model = c.Text
		l.saveLocked()
	case sessions.CtlApproval:
		l.rec.Approval = c.Text
		l.saveLocked()
	}
	l.settleLocked(c, "applied", "")
	l.publishQueueLocked()
}

func (l *live) modelLoop(ctx context.Context, m harness.Model, set AgentSettings) (outcome, error) {
	e := l.e
	maxSteps := set.MaxSteps
	if maxSteps <= 0 {
		maxSteps = 50
	}
	var total sessions.Usage
	if err := l.resumePendingCalls(ctx, l.toolsFor(set)); err != nil {
		return outcome{}, err
	}
	for step := 0; ; step++ {
		e.mu.Lock()
		if l.boundaryLocked() {
			e.mu.Unlock()
			return outcome{paused: true, usage: total}, nil
		}
		if err := l.ensureMessages(); err != nil {
			e.mu.Unlock()
			return outcome{usage: total}, err
		}
		history := l.historyLocked()
		model := l.rec.Model
		if model == "" {
			model = set.Model
		}
		tools := l.toolsFor(set)
		output := l.rec.TurnOutputSchema
		e.mu.Unlock()
		if step >= maxSteps {
			return outcome{stop: harness.StopMaxTurns, usage: total}, nil
		}
		st, err := l.newStream()
		if err != nil {
			return outcome{usage: total}, err
		}
		res, err := m.Step(ctx, harness.StepRequest{
			SessionID: l.rec.ID, Step: step, Model: model, Instructions: set.Instructions,
			History: history, Tools: specsOf(tools), Output: output,
		}, st)
		e.mu.Lock()
		total = total.Add(res.Usage)
		st.finishLocked()
		e.mu.Unlock()
		if err != nil {
			return outcome{usage: total}, err
		}
		if res.Stop != harness.StopToolUse || len(res.ToolCalls) == 0 {
			return outcome{stop: res.Stop, usage: total}, nil
		}
		for _, call := range res.ToolCalls {
			l.runTool(ctx, st, tools, call)
			if ctx.Err() != nil {
				return outcome{usage: total}, context.Cause(ctx)
			}
		}
	}
}

func (l *live) agentTurn(ctx context.Context, a harness.Agent, set AgentSettings) (outcome, error) {
	e := l.e
	e.mu.Lock()
	if err := l.ensureMessages(); err != nil {
		e.mu.Unlock()
		return outcome{}, err
	}
	history := cloneMessages(l.msgs)
	input := ""
	if n := len(history); n > 0 && history[n-1].Role == sessions.User {
		input = history[n-1].Text()
	}
	turn, resume, model, output := l.rec.Turns, l.rec.AgentResume, l.rec.Model, l.rec.TurnOutputSchema
	if model == "" {
		model = set.Model
	}
	l.ranExecLocked() // the agent's own tools may change anything
	e.mu.Unlock()
	st, err := l.newStream()
	if err != nil {
		return outcome{}, err
	}
	p, err := e.placeOf(l)
	if err != nil {
		return outcome{}, err
	}
	if a.Caps().TurnLease {
		release, err := p.leases.Write(ctx, l.rec.ID)
		if err != nil {
			return outcome{}, err
		}
		l.turnLease = release
		defer func() { l.turnLease(); l.turnLease = nil }()
	}
	scope := p.files.Attribution().Begin(l.rec.ID)
	defer scope.Release()
	res, err := a.Turn(ctx, harness.TurnRequest{
		SessionID: l.rec.ID, Turn: turn, Input: input, Instructions: set.Instructions, History: history,
		Model: model, Resume: resume, Output: output,
	}, st, &host{e: e, l: l, p: p})
	e.mu.Lock()
	st.finishLocked()
	if res.Resume != "" && res.Resume != l.rec.AgentResume {
		l.rec.AgentResume = res.Resume
		l.saveLocked()
	}
	e.mu.Unlock()
	return outcome{stop: res.Stop, usage: res.Usage}, err
}

func cloneMessages(ms []sessions.Message) []sessions.Message {
	out := make([]sessions.Message, len(ms))
	for i, m := range ms {
		out[i] = m.Clone()
	}
	return out
}

// resumePendingCalls runs again the tool calls a quit left waiting on the
// operator (their interactions are still open, or were answered
// meanwhile), before the resumed turn's next model call.
func (l *live) resumePendingCalls(ctx context.Context, tools []*tool) error {
	e := l.e
	e.mu.Lock()
	var st *stream
	var calls []harness.ToolCall
	for i := len(l.msgs) - 1; i >= 0 && st == nil; i-- {
		m := l.msgs[i]
		if m.Role != sessions.Assistant {
			continue
		}
		for _, p := range m.Parts {
			if p.Tool != nil && !p.Tool.State.Finished() {
				calls = append(calls, harness.ToolCall{ID: p.Tool.ID, Name: p.Tool.Name, Input: []byte(p.Tool.Input)})
				if !e.store.CallSealed(l.rec.ID, *p.Tool) {
					if l.recheck == nil {
						l.recheck = map[string]bool{}
					}
					l.recheck[p.Tool.ID] = true
				}
			}
		}
		st = &stream{e: e, l: l, msgID: m.ID, lastSave: e.opts.Now()}
	}
	e.mu.Unlock()
	if len(calls) == 0 {
		return nil
	}
	for _, c := range calls {
		l.runTool(ctx, st, tools, c)
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
	}
	e.mu.Lock()
	st.finishLocked()
	e.mu.Unlock()
	return nil
}
