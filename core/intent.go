package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/atelier-studio/atelier/sessions"
)

// Causes of a turn's cancellation, handed to the harness through its
// context. What the engine does when the turn unwinds is decided by the
// session's intent, not by these: a context keeps only its first cause.
var (
	errStop     = errors.New("stopped by the operator")
	errCancel   = errors.New("cancelled by the operator")
	errShutdown = errors.New("engine shutting down")
	errDeleted  = errors.New("session deleted")
	errLost     = errors.New("workspace lost")
	errStore    = errors.New("the session's state could not be written")
)

// intent is why a turn in flight is being ended, ranked: a stronger intent
// overrides a weaker one that arrived first (a cancel after a stop ends the
// session; a shutdown never overtakes an acknowledged cancel), never the
// reverse. Every control sets it under the engine's lock; finishTurnLocked
// reads it.
type intent int

const (
	intentNone     intent = iota
	intentRetry           // the watchdog's retry: the turn runs again
	intentStop            // stop: the session waits for its next input
	intentShutdown        // the engine closes: the turn resumes in the next one
	intentCancel          // cancel: the session ends cancelled
	intentStore           // a store write failed: the session ends failed
	intentLost            // the workspace vanished
	intentDeleted         // the session is being deleted
)

var intentCause = map[intent]error{
	intentRetry: errRetry, intentStop: errStop, intentShutdown: errShutdown, intentCancel: errCancel,
	intentStore: errStore, intentLost: errLost, intentDeleted: errDeleted,
}

// interruptLocked asks the turn in flight to end for in, unless a stronger
// intent is already set. It reports whether a turn was in flight.
func (l *live) interruptLocked(in intent) bool {
	if !l.inTurn {
		return false
	}
	if in > l.intent {
		l.intent = in
	}
	if l.cancel != nil {
		l.cancel(intentCause[in])
	}
	return true
}

// turnIntentLocked returns, and clears, why the turn that just returned was
// ended: the recorded intent, or the engine's own shutdown when the turn's
// context ended with it and no control said otherwise.
func (l *live) takeIntent(ctx context.Context) intent {
	in := l.intent
	l.intent = intentNone
	if in == intentNone && ctx.Err() != nil {
		cause := context.Cause(ctx)
		for i, c := range intentCause {
			if errors.Is(cause, c) && i > in {
				in = i
			}
		}
		if in == intentNone {
			in = intentShutdown
		}
	}
	return in
}

// setStatusLocked is the one place a session's status changes. A move the
// lifecycle table does not allow is refused and reported (a notice and the
// run log): it would be a bug in the engine, and the record must not lie.
// Staying in the same status is not a move. It does not save.
func (l *live) setStatusLocked(to sessions.Status) bool {
	e := l.e
	from := l.rec.Status
	if from != to && !canMove(from, to) {
		e.bus.publish(Event{Kind: EvNotice, SessionID: l.rec.ID,
			Text: fmt.Sprintf("engine bug: refused the move %s → %s (not in the lifecycle table)", from, to)})
		return false
	}
	l.rec.Status = to
	if to != sessions.Waiting {
		l.rec.WaitReason = ""
	}
	if to != sessions.Ended {
		l.rec.EndReason = ""
	}
	if to != sessions.Running {
		l.rec.SubState = ""
	}
	return true
}

// storeFailedLocked is what every failed write of a session's state comes
// to: never silent. A turn in flight is ended (the session then fails); a
// session between turns ends failed at once. When even that cannot be
// written (a full disk), the session is held in memory as failed and
// refuses every control with the error.
func (l *live) storeFailedLocked(err error) {
	e := l.e
	if err == nil || l.storeErr != nil {
		return
	}
	l.storeErr = fmt.Errorf("write the state of session %s: %w", l.rec.ID, err)
	e.bus.publish(Event{Kind: EvNotice, SessionID: l.rec.ID, Text: l.storeErr.Error()})
	if l.interruptLocked(intentStore) {
		return
	}
	l.failStoredLocked()
}

// failStoredLocked ends a session whose state could not be written; the
// record is tried once more, and when that fails too the failure lives in
// memory only (l.broken), which every control then reports.
func (l *live) failStoredLocked() {
	e := l.e
	if l.rec.Status != sessions.Ended {
		l.setStatusLocked(sessions.Ended)
		l.rec.EndReason, l.rec.Error = sessions.Failed, l.storeErr.Error()
	}
	l.rec.UpdatedAt = e.opts.Now()
	if err := e.store.Save(&l.rec); err != nil {
		// Held failed whatever end the record had: an end the disk does
		// not record (a one-shot turn's completion whose save failed) is
		// not one to report.
		l.broken = true
		if l.rec.Status == sessions.Ended {
			l.rec.EndReason, l.rec.Error = sessions.Failed, l.storeErr.Error()
		}
	}
	rec := l.rec
	e.bus.publish(Event{Kind: EvSession, SessionID: rec.ID, Session: &rec})
}

// appendTurnLocked writes an audit line; a failure fails the session.
func (l *live) appendTurnLocked(ev sessions.TurnEvent) {
	l.storeFailedLocked(l.log.AppendTurn(ev))
}
