package core

import (
	"context"
	"encoding/json"

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

// finishTurnLocked settles a session when its turn goroutine returns. The
// session's intent (the strongest control that ended the turn), an error or
// the outcome decide the next status. A turn that ended (not paused, not
// handed to the next engine) gets its key's result and its one history
// commit before the next queued input may start another turn.
func (e *Engine) finishTurnLocked(ctx context.Context, l *live, out outcome, err error) {
	l.deferSave = true
	defer e.flushSaveLocked(l)
	in := l.takeIntent(ctx)
	l.inTurn, l.cancel = false, nil
	for _, w := range l.open {
		if w.it.Kind == sessions.Stuck {
			e.resolveLocked(l, w, Answer{By: "engine", Message: "the turn ended"})
		}
	}
	l.rec.Usage = l.rec.Usage.Add(out.usage)
	ev := sessions.TurnEvent{Time: e.opts.Now(), Turn: l.rec.Turns}
	if out.usage != (sessions.Usage{}) {
		u := out.usage
		ev.Usage = &u
	}
	switch in {
	case intentDeleted:
		return // Delete ends and removes the session
	case intentLost:
		// Nothing can be written: the workspace and its state are gone.
		e.setStatusLocked(l, sessions.Ended)
		l.rec.EndReason = sessions.WorkspaceLost
		rec := l.rec
		e.bus.publish(Event{Kind: EvSession, SessionID: rec.ID, Session: &rec})
		return
	case intentStore:
		e.interruptDanglingLocked(l, "the session's state could not be written")
		e.failStoredLocked(l)
		return
	case intentShutdown:
		// The key stays started: the resumed turn settles it.
		// Quitting: the session stays RUNNING and resumes in the next engine.
		e.interruptDanglingLocked(l, "the studio quit mid-call")
		l.rec.SubState = sessions.Resumable
		ev.Kind = "yield"
		e.appendTurnLocked(l, ev)
		e.saveLocked(l)
		return
	case intentCancel:
		e.interruptDanglingLocked(l, "cancelled by the operator")
		ev.Kind = "cancel"
		e.appendTurnLocked(l, ev)
		e.prepareCommitLocked(l)
		e.endLocked(l, sessions.Cancelled, "")
		e.turnEndedLocked(l, "cancel", nil)
		return
	case intentRetry:
		e.interruptDanglingLocked(l, "retried by the operator")
		ev.Kind = "retry"
		e.appendTurnLocked(l, ev)
		if serr := e.startTurnLocked(l, nil); serr != nil {
			e.failTurnLocked(l, sessions.TurnEvent{Time: e.opts.Now(), Turn: l.rec.Turns}, serr)
		}
		return
	case intentStop:
		e.interruptDanglingLocked(l, "stopped by the operator")
		ev.Kind = "stop"
		e.appendTurnLocked(l, ev)
		e.supersedePauseLocked(l, "the turn was stopped")
		e.prepareCommitLocked(l)
		e.setWaitLocked(l, sessions.WaitAwaitingInput)
		e.turnEndedLocked(l, "stop", nil)
		return
	}
	if err != nil {
		e.failTurnLocked(l, ev, err)
		return
	}
	if out.paused {
		ev.Kind = "pause"
		e.appendTurnLocked(l, ev)
		if l.pause != nil {
			e.settleLocked(l, *l.pause, "applied", "")
			l.pause = nil
		}
		e.setStatusLocked(l, sessions.Paused)
		e.saveLocked(l)
		return
	}
	ev.Kind, ev.Reason = "complete", string(out.stop)
	e.appendTurnLocked(l, ev)
	if o := e.checkOutputLocked(l); o != nil && !o.Valid && l.rec.Mode == sessions.OneShot {
		// The task's answer was the point of a one-shot session.
		oerr := &OutputError{Session: l.rec.ID, Errors: o.Errors}
		e.supersedePauseLocked(l, "the answer does not match its output schema")
		e.prepareCommitLocked(l)
		e.endLocked(l, sessions.Failed, oerr.Error())
		e.turnEndedLocked(l, "fail", oerr)
		return
	}
	e.prepareCommitLocked(l)
	stop := out.stop
	if stop != harness.StopQuestion && e.questionOpenLocked(l) {
		stop = harness.StopQuestion
	}
	if l.pause != nil && stop == harness.StopEnd && l.rec.Mode == sessions.Continuous && hasQueuedInput(l) {
		// The turn's end is the boundary: hold before the next queued input.
		e.settleLocked(l, *l.pause, "applied", "at the end of the turn")
		l.pause = nil
		e.setStatusLocked(l, sessions.Paused)
		l.rec.BetweenTurns = true
		e.saveLocked(l)
		e.turnEndedLocked(l, "complete", nil)
		return
	}
	e.supersedePauseLocked(l, "the turn ended first")
	switch stop {
	case harness.StopQuestion:
		e.setWaitLocked(l, sessions.WaitQuestion)
	case harness.StopMaxTokens, harness.StopMaxTurns:
		e.setWaitLocked(l, sessions.WaitStopLimit)
	default:
		if l.rec.Mode == sessions.Continuous {
			e.setWaitLocked(l, sessions.WaitAwaitingInput)
		} else {
			e.endLocked(l, sessions.Completed, "")
		}
	}
	e.turnEndedLocked(l, "complete", nil)
}

// failTurnLocked ends the session failed with the turn's error.
func (e *Engine) failTurnLocked(l *live, ev sessions.TurnEvent, err error) {
	e.interruptDanglingLocked(l, "the turn failed")
	ev.Kind, ev.Error = "fail", err.Error()
	e.appendTurnLocked(l, ev)
	e.messageLocked(l, sessions.Notice, []sessions.Part{{Type: sessions.ErrorPart, Text: err.Error()}})
	e.supersedePauseLocked(l, "the turn failed")
	e.prepareCommitLocked(l)
	e.endLocked(l, sessions.Failed, err.Error())
	e.turnEndedLocked(l, "fail", err)
}

// questionOpenLocked reports whether the turn left a question to the
// operator open: the agent's own ask-the-user tool still pending when its
// turn ended. Never a guess from the text.
func (e *Engine) questionOpenLocked(l *live) bool {
	for _, w := range l.open {
		if w.it.Kind == sessions.Question && w.it.Turn == l.rec.Turns {
			return true
		}
	}
	return false
}

// turnEndedLocked is the end of the open turn, whatever ended it: its one
// history commit is queued (numbered with this turn, naming what it wrote,
// which is then forgotten), and a WAITING session takes its next queued
// input.
func (e *Engine) turnEndedLocked(l *live, how string, err error) {
	e.settleKeyLocked(l, how, err)
	if l.rec.TurnOutputSchema != nil {
		l.rec.TurnOutputSchema = nil
		e.saveLocked(l)
	}
	e.flushSaveLocked(l)
	e.queueTurnCommitLocked(l)
	l.held = nil
	if l.rec.Status == sessions.Waiting {
		e.nextInputLocked(l)
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

// setWaitLocked moves a session to WAITING and saves it.
func (e *Engine) setWaitLocked(l *live, why sessions.WaitReason) {
	if e.setStatusLocked(l, sessions.Waiting) {
		l.rec.WaitReason = why
	}
	e.saveLocked(l)
}

// nextInputLocked starts a new turn with the first queued prompt or steer
// of a WAITING session, applying queued settings changes on the way.
func (e *Engine) nextInputLocked(l *live) {
	for len(l.queue) > 0 && l.rec.Status == sessions.Waiting && !l.compacting && !e.closed && !e.opts.Passive {
		c := l.queue[0]
		l.queue = l.queue[1:]
		switch c.Kind {
		case sessions.CtlPrompt, sessions.CtlSteer:
			// A failure is handled there: the input is back in the queue,
			// or the session failed with the error.
			_ = e.takeInputLocked(l, c)
			return
		case sessions.CtlCompact:
			e.publishQueueLocked(l)
			e.startCompactLocked(l, c)
			continue
		case sessions.CtlClear:
			e.clearLocked(l, c)
			continue
		}
		e.applyQueuedLocked(l, c)
	}
}

// takeInputLocked starts a new turn with a queued prompt or steer (already
// taken off the queue). A keyed input's key is marked started; the turn's
// end records its result. When the turn cannot start (the engine is
// closing, a write failed) the input goes back to the head of the queue,
// unsettled: an acknowledged prompt is never dropped.
func (e *Engine) takeInputLocked(l *live, c sessions.Control) error {
	if err := e.canStartTurnLocked(l); err != nil {
		l.queue = append([]sessions.Control{c}, l.queue...)
		return err
	}
	// What is still queued was queued behind this input: its settings
	// changes wait for this turn's end.
	l.held = map[string]bool{}
	for _, q := range l.queue {
		if q.Kind == sessions.CtlModel || q.Kind == sessions.CtlApproval {
			l.held[q.ID] = true
		}
	}
	if c.Key != "" {
		k := l.keys[c.Key]
		k.Key, k.Op, k.State, k.Turn = c.Key, c.ID, sessions.KeyStarted, l.rec.Turns+1
		e.keyLocked(l, k)
		l.rec.TurnKey = c.Key
	}
	// The message first, then the outcome: a crash in between leaves a
	// delivered input that the next open recognises by its control id.
	if err := e.startTurnLocked(l, &turnInput{text: c.Text, from: c.ID, output: c.Output}); err != nil {
		e.settleLocked(l, c, "refused", err.Error())
		e.publishQueueLocked(l)
		return err
	}
	e.settleLocked(l, c, "applied", "")
	e.publishQueueLocked(l)
	return nil
}

// keyLocked records an idempotency key's new state.
func (e *Engine) keyLocked(l *live, k sessions.KeyRecord) {
	k.Time = e.opts.Now()
	l.keys[k.Key] = k
	e.storeFailedLocked(l, l.log.AppendKey(k))
}

// PromptResult is what a keyed prompt's turn produced, recorded with its key.
type PromptResult struct {
	// Outcome is how the turn ended: complete, fail, stop or cancel (the
	// kinds of turns.jsonl).
	Outcome    string              `json:"outcome,omitempty"`
	Error      string              `json:"error,omitempty"`
	Turn       int                 `json:"turn,omitempty"`
	Status     sessions.Status     `json:"status"`
	WaitReason sessions.WaitReason `json:"wait_reason,omitempty"`
	EndReason  sessions.EndReason  `json:"end_reason,omitempty"`
	Text       string              `json:"text,omitempty"`
	// Output is, for a prompt with an output schema, its structured
	// answer: the JSON that matched, or the validation errors.
	Output *sessions.Output `json:"output,omitempty"`
}

// settleKeyLocked records the result of the turn a keyed input started:
// how it ended (complete, fail, stop, cancel), the session's status then,
// and the agent's last reply of that turn.
func (e *Engine) settleKeyLocked(l *live, how string, err error) {
	if l.rec.TurnKey == "" {
		return
	}
	k, ok := l.keys[l.rec.TurnKey]
	l.rec.TurnKey = ""
	if !ok {
		return
	}
	res := PromptResult{Outcome: how, Error: errString(err), Turn: l.rec.Turns,
		Status: l.rec.Status, WaitReason: l.rec.WaitReason, EndReason: l.rec.EndReason}
	for i := len(l.msgs) - 1; i >= 0 && l.msgs[i].Turn == l.rec.Turns; i-- {
		if l.msgs[i].Role == sessions.Assistant && l.msgs[i].Text() != "" {
			res.Text = l.msgs[i].Text()
			break
		}
	}
	if o := l.rec.Output; o != nil && o.Turn == l.rec.Turns && len(l.rec.TurnOutputSchema) > 0 {
		oc := *o
		res.Output = &oc
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		e.storeFailedLocked(l, merr)
		return
	}
	k.Result, k.State = b, sessions.KeyDone
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
	if e.setStatusLocked(l, sessions.Ended) {
		l.rec.EndReason, l.rec.Error = why, msg
	}
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
	if h, ok := e.agentOfLocked(l); ok {
		if c, ok := h.(harness.Closer); ok {
			e.closeAgentIn(c, l.rec.ID)
		}
	}
}

// closeAgentIn ends session id's process in c, in the background; a
// failure is a notice.
func (e *Engine) closeAgentIn(c harness.Closer, id string) {
	go func() {
		if err := c.CloseSession(id); err != nil {
			e.mu.Lock()
			e.bus.publish(Event{Kind: EvNotice, SessionID: id, Text: "closing the agent's process: " + err.Error()})
			e.mu.Unlock()
		}
	}()
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
	e.storeFailedLocked(l, l.log.AppendControl(sessions.Control{ID: c.ID, Kind: c.Kind, Time: e.opts.Now(), Outcome: outcome, Detail: detail}))
}

func (e *Engine) publishQueueLocked(l *live) {
	q := append([]sessions.Control(nil), l.queue...)
	e.bus.publish(Event{Kind: EvQueue, SessionID: l.rec.ID, Queue: q})
}

// flushSaveLocked ends a deferred save (see live.deferSave).
func (e *Engine) flushSaveLocked(l *live) {
	if !l.deferSave {
		return
	}
	l.deferSave = false
	if l.saveDirty {
		e.saveLocked(l)
	}
}
