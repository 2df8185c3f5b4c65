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
func (l *live) finishTurnLocked(ctx context.Context, out outcome, err error) {
	e := l.e
	l.deferSave = true
	defer l.flushSaveLocked()
	in := l.takeIntent(ctx)
	l.inTurn, l.cancel = false, nil
	for _, w := range l.open {
		if w.it.Kind == sessions.Stuck {
			l.resolveLocked(w, Answer{By: "engine", Message: "the turn ended"})
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
		l.setStatusLocked(sessions.Ended)
		l.rec.EndReason = sessions.WorkspaceLost
		rec := l.rec
		e.bus.publish(Event{Kind: EvSession, SessionID: rec.ID, Session: &rec})
		return
	case intentStore:
		l.interruptDanglingLocked("the session's state could not be written")
		l.failStoredLocked()
		return
	case intentShutdown:
		// The key stays started: the resumed turn settles it.
		// Quitting: the session stays RUNNING and resumes in the next engine.
		// A reply opened with nothing in it yet goes (the resumed step
		// opens its own), rather than staying as an empty message.
		l.dropCutStepsLocked(true)
		l.interruptDanglingLocked("the studio quit mid-call")
		l.rec.SubState = sessions.Resumable
		ev.Kind = "yield"
		l.appendTurnLocked(ev)
		l.saveLocked()
		return
	case intentCancel:
		l.interruptDanglingLocked("cancelled by the operator")
		ev.Kind = "cancel"
		l.appendTurnLocked(ev)
		l.prepareCommitLocked()
		l.endLocked(sessions.Cancelled, "")
		l.turnEndedLocked("cancel", nil)
		return
	case intentRetry:
		l.interruptDanglingLocked("retried by the operator")
		ev.Kind = "retry"
		l.appendTurnLocked(ev)
		if serr := l.startTurnLocked(nil); serr != nil {
			l.failTurnLocked(sessions.TurnEvent{Time: e.opts.Now(), Turn: l.rec.Turns}, serr)
		}
		return
	case intentStop:
		l.interruptDanglingLocked("stopped by the operator")
		ev.Kind = "stop"
		l.appendTurnLocked(ev)
		l.supersedePauseLocked("the turn was stopped")
		l.prepareCommitLocked()
		l.setWaitLocked(sessions.WaitAwaitingInput)
		l.turnEndedLocked("stop", nil)
		return
	}
	if err != nil {
		l.failTurnLocked(ev, err)
		return
	}
	if out.paused {
		ev.Kind = "pause"
		l.appendTurnLocked(ev)
		if l.pause != nil {
			l.settleLocked(*l.pause, "applied", "")
			l.pause = nil
		}
		l.setStatusLocked(sessions.Paused)
		l.saveLocked()
		return
	}
	ev.Kind, ev.Reason = "complete", string(out.stop)
	l.appendTurnLocked(ev)
	if o := l.checkOutputLocked(); o != nil && !o.Valid && l.rec.Mode == sessions.OneShot {
		// The task's answer was the point of a one-shot session.
		oerr := &OutputError{Session: l.rec.ID, Errors: o.Errors}
		l.supersedePauseLocked("the answer does not match its output schema")
		l.prepareCommitLocked()
		l.endLocked(sessions.Failed, oerr.Error())
		l.turnEndedLocked("fail", oerr)
		return
	}
	l.prepareCommitLocked()
	stop := out.stop
	if stop != harness.StopQuestion && l.questionOpenLocked() {
		stop = harness.StopQuestion
	}
	if l.pause != nil && stop == harness.StopEnd && l.rec.Mode == sessions.Continuous && hasQueuedInput(l) {
		// The turn's end is the boundary: hold before the next queued input.
		l.settleLocked(*l.pause, "applied", "at the end of the turn")
		l.pause = nil
		l.setStatusLocked(sessions.Paused)
		l.rec.BetweenTurns = true
		l.saveLocked()
		l.turnEndedLocked("complete", nil)
		return
	}
	l.supersedePauseLocked("the turn ended first")
	switch stop {
	case harness.StopQuestion:
		l.setWaitLocked(sessions.WaitQuestion)
	case harness.StopMaxTokens, harness.StopMaxTurns:
		l.setWaitLocked(sessions.WaitStopLimit)
	default:
		if l.rec.Mode == sessions.Continuous {
			l.setWaitLocked(sessions.WaitAwaitingInput)
		} else {
			l.endLocked(sessions.Completed, "")
		}
	}
	l.turnEndedLocked("complete", nil)
}

// failTurnLocked ends the session failed with the turn's error.
func (l *live) failTurnLocked(ev sessions.TurnEvent, err error) {
	l.interruptDanglingLocked("the turn failed")
	ev.Kind, ev.Error = "fail", err.Error()
	l.appendTurnLocked(ev)
	l.messageLocked(sessions.Notice, []sessions.Part{{Type: sessions.ErrorPart, Text: err.Error()}})
	l.supersedePauseLocked("the turn failed")
	l.prepareCommitLocked()
	l.endLocked(sessions.Failed, err.Error())
	l.turnEndedLocked("fail", err)
}

// questionOpenLocked reports whether the turn left a question to the
// operator open: the agent's own ask-the-user tool still pending when its
// turn ended. Never a guess from the text.
func (l *live) questionOpenLocked() bool {
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
func (l *live) turnEndedLocked(how string, err error) {
	l.settleKeyLocked(how, err)
	if l.rec.TurnOutputSchema != nil {
		l.rec.TurnOutputSchema = nil
		l.saveLocked()
	}
	l.flushSaveLocked()
	l.queueTurnCommitLocked()
	l.held = nil
	if l.rec.Status == sessions.Waiting {
		l.nextInputLocked()
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
func (l *live) setWaitLocked(why sessions.WaitReason) {
	if l.setStatusLocked(sessions.Waiting) {
		l.rec.WaitReason = why
	}
	l.saveLocked()
}

// nextInputLocked starts a new turn with the first queued prompt or steer
// of a WAITING session, applying queued settings changes on the way.
func (l *live) nextInputLocked() {
	e := l.e
	for len(l.queue) > 0 && l.rec.Status == sessions.Waiting && !l.compacting && !e.closed && !e.opts.Passive {
		c := l.queue[0]
		l.queue = l.queue[1:]
		switch c.Kind {
		case sessions.CtlPrompt, sessions.CtlSteer:
			// A failure is handled there: the input is back in the queue,
			// or the session failed with the error.
			_ = l.takeInputLocked(c)
			return
		case sessions.CtlCompact:
			l.publishQueueLocked()
			l.startCompactLocked(c)
			continue
		case sessions.CtlClear:
			l.clearLocked(c)
			continue
		}
		l.applyQueuedLocked(c)
	}
}

// takeInputLocked starts a new turn with a queued prompt or steer (already
// taken off the queue). A keyed input's key is marked started; the turn's
// end records its result. When the turn cannot start (the engine is
// closing, a write failed) the input goes back to the head of the queue,
// unsettled: an acknowledged prompt is never dropped.
func (l *live) takeInputLocked(c sessions.Control) error {
	if err := l.canStartTurnLocked(); err != nil {
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
		l.keyLocked(k)
		l.rec.TurnKey = c.Key
	}
	// The message first, then the outcome: a crash in between leaves a
	// delivered input that the next open recognises by its control id.
	if err := l.startTurnLocked(&turnInput{text: c.Text, from: c.ID, output: c.Output}); err != nil {
		l.settleLocked(c, "refused", err.Error())
		l.publishQueueLocked()
		return err
	}
	l.settleLocked(c, "applied", "")
	l.publishQueueLocked()
	return nil
}

// keyLocked records an idempotency key's new state.
func (l *live) keyLocked(k sessions.KeyRecord) {
	e := l.e
	k.Time = e.opts.Now()
	l.keys[k.Key] = k
	l.storeFailedLocked(l.log.AppendKey(k))
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
func (l *live) settleKeyLocked(how string, err error) {
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
		l.storeFailedLocked(merr)
		return
	}
	k.Result, k.State = b, sessions.KeyDone
	l.keyLocked(k)
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

func (l *live) endLocked(why sessions.EndReason, msg string) {
	if l.setStatusLocked(sessions.Ended) {
		l.rec.EndReason, l.rec.Error = why, msg
	}
	l.resolveAllLocked("the session ended")
	for _, c := range l.queue {
		l.settleLocked(c, "refused", "the session ended")
	}
	if len(l.queue) > 0 {
		l.queue = nil
		l.publishQueueLocked()
	}
	if l.startTimer != nil {
		l.startTimer.Stop()
	}
	l.releaseEnvLocked()
	l.closeAgentLocked()
	l.saveLocked()
}

// closeAgentLocked lets an agent that keeps a process per session end it.
func (l *live) closeAgentLocked() {
	e := l.e
	if h, ok := l.agentOfLocked(); ok {
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
func (l *live) supersedePauseLocked(why string) {
	e := l.e
	if l.pause == nil {
		return
	}
	l.settleLocked(*l.pause, "superseded", why)
	e.bus.publish(Event{Kind: EvNotice, SessionID: l.rec.ID, Text: "pause superseded: " + why})
	l.pause = nil
}

// settleLocked records a control's outcome.
func (l *live) settleLocked(c sessions.Control, outcome, detail string) {
	e := l.e
	l.storeFailedLocked(l.log.AppendControl(sessions.Control{ID: c.ID, Kind: c.Kind, Time: e.opts.Now(), Outcome: outcome, Detail: detail}))
}

func (l *live) publishQueueLocked() {
	e := l.e
	q := append([]sessions.Control(nil), l.queue...)
	e.bus.publish(Event{Kind: EvQueue, SessionID: l.rec.ID, Queue: q})
}

// flushSaveLocked ends a deferred save (see live.deferSave).
func (l *live) flushSaveLocked() {
	if !l.deferSave {
		return
	}
	l.deferSave = false
	if l.saveDirty {
		l.saveLocked()
	}
}
