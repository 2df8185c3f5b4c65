package core

import (
	"context"
	"fmt"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// callKey names a tool call's interaction of one kind.
func callKey(it sessions.Interaction) string { return it.ToolCall + "\x00" + string(it.Kind) }

// reattach returns the open interaction a resumed turn's tool call already
// opened (same call, same kind), if any.
func (l *live) reattach(it sessions.Interaction) *waiter {
	if it.ToolCall == "" {
		return nil
	}
	for _, w := range l.open {
		if w.it.ToolCall == it.ToolCall && w.it.Kind == it.Kind {
			return w
		}
	}
	return nil
}

// Answer is the operator's reply to an interaction.
type Answer struct {
	Decision sessions.Decision // approvals
	Message  string            // a denial's message for the agent
	Text     string            // a question's answer
	By       string            // who answered: "operator", "cli", "auto"
	// Prefix, with AllowSession on an approval of a command, grants the
	// commands starting with it rather than only the command shown.
	Prefix string
}

// park opens an interaction and waits for its resolution with the session
// parked: the worker slot is released meanwhile (and taken back after), so a
// human wait never holds a worker. A park with a deadline resolves itself
// then. ctx ending resolves the interaction as interrupted.
func (l *live) park(ctx context.Context, it sessions.Interaction) (sessions.Interaction, error) {
	e := l.e
	e.mu.Lock()
	if res, ok := l.answered[callKey(it)]; ok && it.ToolCall != "" {
		// Answered while no turn waited on it (between a quit and the
		// resumed turn): the answer stands.
		delete(l.answered, callKey(it))
		e.mu.Unlock()
		return res, nil
	}
	w := l.reattach(it)
	reattached := w != nil
	if reattached {
		// A turn resumed after a quit or a crash waits on the interaction
		// its tool call opened then: the question asked stays the same one.
		it = w.it
	} else {
		it.ID = sessions.NewID()
		it.Time = e.opts.Now()
		it.Turn = l.rec.Turns
		if err := l.log.AppendInteraction(it); err != nil {
			e.mu.Unlock()
			return it, err
		}
		w = newWaiter(it)
		l.open[it.ID] = w
	}
	w.take()
	// The interaction and the session's parking are one change to the
	// live view (see bus.group).
	e.bus.group(func() {
		if !reattached {
			cp := it
			e.bus.publish(Event{Kind: EvInteraction, SessionID: l.rec.ID, Interaction: &cp})
		}
		l.rec.SubState = sessions.Parked
		l.saveLocked()
		if !w.yielded {
			// The yield carries its interaction's time: that is how a
			// recovery finds it written (recover_audit.go).
			l.appendTurnLocked(sessions.TurnEvent{Time: it.Time, Turn: it.Turn, Kind: "yield", Reason: string(it.Kind)})
			w.yielded = true
		}
	})
	e.mu.Unlock()
	if l.slotHeld() {
		e.release()
		l.setSlot(false)
	}
	// No human wait holds a lease: another session may write meanwhile
	// (the leases of the session's place; a place that cannot be found has
	// none of its leases).
	p, perr := e.placeOf(l)
	if perr == nil {
		p.leases.ReleaseAll(l.rec.ID)
	}

	var timeout <-chan time.Time
	if it.Deadline != nil {
		t := time.NewTimer(time.Until(*it.Deadline))
		defer t.Stop()
		timeout = t.C
	}
	var res sessions.Interaction
	var err error
	select {
	case res = <-w.done:
	case <-timeout:
		e.mu.Lock()
		if _, open := l.open[it.ID]; open {
			res = l.resolveLocked(w, Answer{By: "timer"})
		} else {
			res = <-w.done
		}
		e.mu.Unlock()
	case <-ctx.Done():
		err = context.Cause(ctx)
		e.mu.Lock()
		if !e.closed || it.ToolCall == "" {
			l.resolveLocked(w, Answer{By: "engine", Message: "interrupted: " + err.Error()})
		}
		// Quitting leaves a tool call's interaction open: the next engine
		// resumes the turn on it, and any process can answer it meanwhile.
		e.mu.Unlock()
	}

	e.mu.Lock()
	if ctx.Err() == nil {
		l.rec.SubState = sessions.Resumable
		l.saveLocked()
		l.appendTurnLocked(sessions.TurnEvent{Time: e.opts.Now(), Turn: it.Turn, Kind: "resume", Reason: string(it.Kind)})
	}
	e.mu.Unlock()
	if ctx.Err() != nil {
		return res, context.Cause(ctx)
	}
	if aerr := e.acquire(ctx); aerr != nil {
		return res, aerr
	}
	l.setSlot(true)
	if l.turnLease != nil && perr == nil {
		release, lerr := p.leases.Write(ctx, l.rec.ID)
		if lerr != nil {
			return res, lerr
		}
		l.turnLease = release
	}
	e.mu.Lock()
	l.rec.SubState = sessions.Active
	l.saveLocked()
	e.mu.Unlock()
	return res, err
}

// answerLocked checks an operator's answer against the interaction and
// resolves it.
func (l *live) answerLocked(w *waiter, a Answer) (sessions.Interaction, error) {
	id := w.it.ID
	if w.it.Kind == sessions.Approval {
		switch a.Decision {
		case sessions.AllowOnce, sessions.AllowSession, sessions.Deny:
		default:
			return sessions.Interaction{}, fmt.Errorf("answer to approval %s: decision must be %s, %s or %s: %w",
				id, sessions.AllowOnce, sessions.AllowSession, sessions.Deny, ErrBadAnswer)
		}
	}
	if a.Prefix != "" {
		if w.it.Kind != sessions.Approval || a.Decision != sessions.AllowSession {
			return sessions.Interaction{}, fmt.Errorf("answer to %s %s: a prefix goes only with %s: %w", w.it.Kind, id, sessions.AllowSession, ErrBadAnswer)
		}
		if err := checkPrefix(w.it, a.Prefix); err != nil {
			return sessions.Interaction{}, err
		}
	}
	if w.it.Kind == sessions.Question && a.Text == "" {
		if w.it.Default == "" {
			return sessions.Interaction{}, fmt.Errorf("answer to question %s: empty answer and no default: %w", id, ErrBadAnswer)
		}
		a.Text = w.it.Default
	}
	return l.resolveLocked(w, a), nil
}

func (l *live) unknownInteractionLocked(id string) error {
	if l.wasResolvedLocked(id) {
		return fmt.Errorf("interaction %s: %w", id, ErrResolved)
	}
	return fmt.Errorf("interaction %s: %w", id, ErrUnknownInteraction)
}

// resolveLocked records a resolution, publishes it and wakes the waiter.
func (l *live) resolveLocked(w *waiter, a Answer) sessions.Interaction {
	e := l.e
	res := w.it
	res.Resolved, res.Time = true, e.opts.Now()
	res.Decision, res.Message, res.Answer, res.By = a.Decision, a.Message, a.Text, a.By
	if a.Decision == sessions.AllowSession {
		res.Prefix = a.Prefix
	}
	l.storeFailedLocked(l.log.AppendInteraction(res))
	delete(l.open, w.it.ID)
	if res.ToolCall != "" {
		select {
		case <-w.taken:
		default:
			// No turn waits on it right now: keep the answer for the
			// resumed turn's tool call.
			l.answered[callKey(res)] = res
			if w.yielded {
				// The turn parked on it before a crash or a quit: the
				// answer resumes it, and the resumed turn's tool call,
				// which takes the answer without parking, logs nothing.
				l.appendTurnLocked(sessions.TurnEvent{Time: res.Time, Turn: res.Turn, Kind: "resume", Reason: string(res.Kind)})
			}
		}
	}
	if res.Decision == sessions.AllowSession {
		l.grants.add(grantOf(res.Tool, res.Command, res.Prefix))
	}
	cp := res
	e.bus.publish(Event{Kind: EvInteraction, SessionID: l.rec.ID, Interaction: &cp})
	select {
	case w.done <- res:
	default:
	}
	return res
}

// resolveAllLocked closes every open interaction of a session (it ended).
func (l *live) resolveAllLocked(why string) {
	for _, w := range l.open {
		l.resolveLocked(w, Answer{By: "engine", Message: why})
	}
}

func (l *live) wasResolvedLocked(id string) bool {
	its, _, _ := l.log.Interactions()
	for _, it := range its {
		if it.ID == id {
			return true
		}
	}
	return false
}
