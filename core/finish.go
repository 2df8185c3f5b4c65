package core

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// acquire takes a worker slot, or fails when ctx ends first.
func (e *Engine) acquire(ctx context.Context) error {
	select {
	case e.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (e *Engine) release() { <-e.slots }

// finishTurnLocked settles a session when its turn goroutine returns: the
// cancellation cause, an error, or the outcome decide the next status.
func (e *Engine) finishTurnLocked(ctx context.Context, l *live, out outcome, err error) {
	l.inTurn, l.cancel = false, nil
	for _, w := range l.open {
		if w.it.Kind == sessions.Stuck {
			e.resolveLocked(l, w, Answer{By: "engine", Message: "the turn ended"})
		}
	}
	l.rec.Usage = l.rec.Usage.Add(out.usage)
	turn := l.rec.Turns
	ev := sessions.TurnEvent{Time: e.opts.Now(), Turn: turn}
	if out.usage != (sessions.Usage{}) {
		u := out.usage
		ev.Usage = &u
	}
	cause := error(nil)
	if ctx.Err() != nil {
		cause = context.Cause(ctx)
	}
	switch {
	case errors.Is(cause, errDeleted):
		return
	case errors.Is(cause, errShutdown):
		// The key stays started: after a crash, a started key turns uncertain;
		// after a quit, the resumed turn settles it.
		// Quitting: the session stays RUNNING and resumes in the next engine.
		e.interruptDanglingLocked(l, "the studio quit mid-call")
		l.rec.SubState = sessions.Resumable
		ev.Kind = "yield"
		l.log.AppendTurn(ev)
		e.saveLocked(l)
		return
	case errors.Is(cause, errCancel):
		e.interruptDanglingLocked(l, "cancelled by the operator")
		ev.Kind = "cancel"
		l.log.AppendTurn(ev)
		e.endLocked(l, sessions.Cancelled, "")
		return
	case errors.Is(cause, errLost):
		// Nothing can be written: the workspace and its state are gone.
		l.rec.Status, l.rec.SubState, l.rec.EndReason = sessions.Ended, "", sessions.WorkspaceLost
		rec := l.rec
		e.bus.publish(Event{Kind: EvSession, SessionID: rec.ID, Session: &rec})
		return
	case errors.Is(cause, errRetry):
		e.interruptDanglingLocked(l, "retried by the operator")
		ev.Kind = "retry"
		l.log.AppendTurn(ev)
		e.startTurnLocked(l, "", false)
		return
	case errors.Is(cause, errStop):
		e.interruptDanglingLocked(l, "stopped by the operator")
		ev.Kind = "stop"
		l.log.AppendTurn(ev)
		e.supersedePauseLocked(l, "the turn was stopped")
		e.waitLocked(l, sessions.WaitAwaitingInput)
		return
	case err != nil:
		e.interruptDanglingLocked(l, "the turn failed")
		ev.Kind, ev.Error = "fail", err.Error()
		l.log.AppendTurn(ev)
		e.newMessageLocked(l, sessions.Notice, []sessions.Part{{Type: sessions.ErrorPart, Text: err.Error()}}, true)
		e.supersedePauseLocked(l, "the turn failed")
		e.endLocked(l, sessions.Failed, err.Error())
		return
	case out.paused:
		ev.Kind = "pause"
		l.log.AppendTurn(ev)
		if l.pause != nil {
			e.settleLocked(l, *l.pause, "applied", "")
			l.pause = nil
		}
		l.rec.Status, l.rec.SubState = sessions.Paused, ""
		e.saveLocked(l)
		return
	}
	ev.Kind, ev.Reason = "complete", string(out.stop)
	l.log.AppendTurn(ev)
	if l.pause != nil && out.stop == harness.StopEnd && l.rec.Mode == sessions.Continuous && hasQueuedInput(l) {
		// The turn's end is the boundary: hold before the next queued input.
		e.settleLocked(l, *l.pause, "applied", "at the end of the turn")
		l.pause = nil
		l.rec.Status, l.rec.SubState, l.rec.BetweenTurns = sessions.Paused, "", true
		e.saveLocked(l)
		return
	}
	e.supersedePauseLocked(l, "the turn ended first")
	switch out.stop {
	case harness.StopQuestion:
		e.waitLocked(l, sessions.WaitQuestion)
	case harness.StopMaxTokens, harness.StopMaxTurns:
		e.waitLocked(l, sessions.WaitStopLimit)
	default:
		if l.rec.Mode == sessions.Continuous {
			e.waitLocked(l, sessions.WaitAwaitingInput)
		} else {
			e.endLocked(l, sessions.Completed, "")
		}
	}
}

func hasQueuedInput(l *live) bool {
	for _, c := range l.queue {
		if c.Kind == sessions.CtlPrompt || c.Kind == sessions.CtlSteer {
			return true
		}
	}
	return false
}

// waitLocked moves a session to WAITING, then starts its next turn at once
// when an input is already queued.
func (e *Engine) waitLocked(l *live, why sessions.WaitReason) {
	l.rec.Status, l.rec.SubState, l.rec.WaitReason = sessions.Waiting, "", why
	e.saveLocked(l)
	e.nextInputLocked(l)
}

// nextInputLocked starts a new turn with the first queued prompt or steer
// of a WAITING session, applying queued settings changes on the way.
func (e *Engine) nextInputLocked(l *live) {
	for len(l.queue) > 0 && l.rec.Status == sessions.Waiting && !l.compacting && !e.closed && !e.opts.Passive {
		c := l.queue[0]
		l.queue = l.queue[1:]
		switch c.Kind {
		case sessions.CtlPrompt, sessions.CtlSteer:
			e.takeInputLocked(l, c)
			return
		case sessions.CtlCompact:
			e.publishQueueLocked(l)
			e.startCompactLocked(l, c)
			continue
		}
		e.applyQueuedLocked(l, c)
	}
}

// takeInputLocked starts a new turn with a queued prompt or steer. A keyed
// input's key is marked started; the turn's end marks it done with its
// result.
func (e *Engine) takeInputLocked(l *live, c sessions.Control) error {
	if c.Key != "" {
		e.keyLocked(l, sessions.KeyRecord{Key: c.Key, Op: c.ID, State: "started"})
		l.turnKey = c.Key
	}
	// The message first, then the outcome: a crash in between leaves a
	// delivered input that the next open recognises by its control id.
	err := e.startTurnLocked(l, c.Text, true, c.ID)
	e.settleLocked(l, c, "applied", "")
	e.publishQueueLocked(l)
	return err
}

// keyLocked records an idempotency key's new state.
func (e *Engine) keyLocked(l *live, k sessions.KeyRecord) {
	k.Time = e.opts.Now()
	l.keys[k.Key] = k
	l.log.AppendKey(k)
}

// PromptResult is what a keyed prompt's turn produced, recorded with its key.
type PromptResult struct {
	Status     sessions.Status     `json:"status"`
	WaitReason sessions.WaitReason `json:"wait_reason,omitempty"`
	EndReason  sessions.EndReason  `json:"end_reason,omitempty"`
	Text       string              `json:"text,omitempty"`
}

// settleKeyLocked records the result of the turn a keyed input started.
func (e *Engine) settleKeyLocked(l *live) {
	if l.turnKey == "" {
		return
	}
	k := l.keys[l.turnKey]
	l.turnKey = ""
	res := PromptResult{Status: l.rec.Status, WaitReason: l.rec.WaitReason, EndReason: l.rec.EndReason}
	for i := len(l.msgs) - 1; i >= 0; i-- {
		if l.msgs[i].Role == sessions.Assistant && l.msgs[i].Text() != "" {
			res.Text = l.msgs[i].Text()
			break
		}
	}
	k.Result, _ = json.Marshal(res)
	k.State = "done"
	e.keyLocked(l, k)
}

// KeyResult returns what a keyed prompt or exec of a session recorded: its
// state (queued, started, done, uncertain) and, once done, its result.
func (e *Engine) KeyResult(id, key string) (sessions.KeyRecord, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return sessions.KeyRecord{}, false, err
	}
	k, ok := l.keys[key]
	return k, ok, nil
}

func (e *Engine) endLocked(l *live, why sessions.EndReason, msg string) {
	l.rec.Status, l.rec.SubState, l.rec.WaitReason, l.rec.EndReason = sessions.Ended, "", "", why
	l.rec.Error = msg
	e.resolveAllLocked(l, "the session ended")
	for _, c := range l.queue {
		e.settleLocked(l, c, "refused", "the session ended")
	}
	if len(l.queue) > 0 {
		l.queue = nil
		e.publishQueueLocked(l)
	}
	if l.startTimer != nil {
		l.startTimer.Stop()
	}
	e.releaseEnvLocked(l)
	e.closeAgentLocked(l)
	e.saveLocked(l)
}

// closeAgentLocked lets an agent that keeps a process per session end it.
func (e *Engine) closeAgentLocked(l *live) {
	if h, _, err := e.opts.Agents.Resolve(l.rec.Agent); err == nil {
		if c, ok := h.(harness.Closer); ok {
			go c.CloseSession(l.rec.ID)
		}
	}
}

// supersedePauseLocked records that a pending pause never took effect.
func (e *Engine) supersedePauseLocked(l *live, why string) {
	if l.pause == nil {
		return
	}
	e.settleLocked(l, *l.pause, "superseded", why)
	e.bus.publish(Event{Kind: EvNotice, SessionID: l.rec.ID, Text: "pause superseded: " + why})
	l.pause = nil
}

// settleLocked records a control's outcome.
func (e *Engine) settleLocked(l *live, c sessions.Control, outcome, detail string) {
	l.log.AppendControl(sessions.Control{ID: c.ID, Kind: c.Kind, Time: e.opts.Now(), Outcome: outcome, Detail: detail})
}

func (e *Engine) publishQueueLocked(l *live) {
	q := append([]sessions.Control(nil), l.queue...)
	e.bus.publish(Event{Kind: EvQueue, SessionID: l.rec.ID, Queue: q})
}
