package core

import (
	"errors"
	"fmt"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// repeatLimit is how many identical tool calls in a row make a turn stuck.
const repeatLimit = 3

// errRetry cancels a stuck turn so that it runs again.
var errRetry = errors.New("retried by the operator")

// Answers to a stuck report (Answer.Text).
const (
	StuckNudge  = "nudge"
	StuckRetry  = "retry"
	StuckCancel = "cancel"
)

// progressLocked notes that a session made progress (tokens, tool output).
func (l *live) progressLocked(now time.Time) { l.lastProgress = now }

// noteCallLocked tracks repeated identical tool calls and reports the
// session stuck at the limit.
func (l *live) noteCallLocked(name, input string) {
	sig := name + "\x00" + input
	if sig == l.lastCall {
		l.repeats++
	} else {
		l.lastCall, l.repeats = sig, 1
	}
	if l.repeats == repeatLimit {
		l.reportStuckLocked(fmt.Sprintf("repeated the same %s call %d times", name, repeatLimit))
	}
}

// watchLocked reports a running session stuck when it made no progress for
// the configured time. Parked sessions wait on someone else, so they are
// never stuck.
func (l *live) watchLocked(now time.Time) {
	e := l.e
	after := e.opts.StuckAfter
	if after <= 0 || !l.inTurn || l.rec.SubState != sessions.Active || l.lastProgress.IsZero() {
		return
	}
	if now.Sub(l.lastProgress) >= after {
		l.reportStuckLocked(fmt.Sprintf("no progress for %s", now.Sub(l.lastProgress).Round(time.Second)))
	}
}

func (l *live) reportStuckLocked(why string) {
	e := l.e
	for _, w := range l.open {
		if w.it.Kind == sessions.Stuck {
			return // one report at a time
		}
	}
	it := sessions.Interaction{ID: sessions.NewID(), Kind: sessions.Stuck, Time: e.opts.Now(), Turn: l.rec.Turns,
		Text: why, Choices: []string{StuckNudge, StuckRetry, StuckCancel}}
	if err := l.log.AppendInteraction(it); err != nil {
		return
	}
	l.open[it.ID] = newWaiter(it)
	cp := it
	e.bus.publish(Event{Kind: EvInteraction, SessionID: l.rec.ID, Interaction: &cp})
}

// answerStuckLocked carries out the operator's answer to a stuck report.
func (l *live) answerStuckLocked(w *waiter, a Answer) error {
	e := l.e
	switch a.Text {
	case StuckNudge:
		l.resolveLocked(w, a)
		msg := a.Message
		if msg == "" {
			msg = "You seem stuck. Step back, say what is blocking you, and try a different approach."
		}
		l.queueInputLocked(sessions.Control{ID: sessions.NewID(), Kind: sessions.CtlSteer, Text: msg, Time: e.opts.Now()})
	case StuckRetry:
		l.resolveLocked(w, a)
		l.interruptLocked(intentRetry)
	case StuckCancel:
		l.resolveLocked(w, a)
		if !l.interruptLocked(intentCancel) {
			l.cancelIdleLocked()
		}
	default:
		return fmt.Errorf("answer to stuck report %s: choose %s, %s or %s", w.it.ID, StuckNudge, StuckRetry, StuckCancel)
	}
	l.lastProgress, l.repeats, l.lastCall = e.opts.Now(), 0, ""
	return nil
}
