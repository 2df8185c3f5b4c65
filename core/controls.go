package core

import (
	"fmt"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// Receipt acknowledges a control: it is recorded durably, and When says when
// it takes effect ("now", "at the next step", "at the end of the agent's
// turn", "when the session starts", "queued").
type Receipt struct {
	ID   string `json:"id"`
	When string `json:"when"`
}

// requestLocked records a control durably before anything acts on it.
func (e *Engine) requestLocked(l *live, kind sessions.ControlKind, text, key string) (sessions.Control, error) {
	c := sessions.Control{ID: sessions.NewID(), Kind: kind, Text: text, Key: key, Time: e.opts.Now()}
	if err := l.log.AppendControl(c); err != nil {
		return c, fmt.Errorf("record %s of session %s: %w", kind, l.rec.ID, err)
	}
	return c, nil
}

// control runs the common part of every control: look the session up, check
// the action against the lifecycle, record the request, then apply it.
func (e *Engine) control(id string, a Action, kind sessions.ControlKind, text string,
	apply func(l *live, c sessions.Control) (string, error)) (Receipt, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return Receipt{}, err
	}
	if err := e.checkLocked(l, a); err != nil {
		return Receipt{}, err
	}
	c, err := e.requestLocked(l, kind, text, "")
	if err != nil {
		return Receipt{}, err
	}
	when, err := apply(l, c)
	if err != nil {
		e.settleLocked(l, c, "refused", err.Error())
		return Receipt{}, err
	}
	return Receipt{ID: c.ID, When: when}, nil
}

func (e *Engine) boundaryWord(l *live) string {
	h, _, err := e.opts.Agents.Resolve(l.rec.Agent)
	if err == nil && h.Caps().Boundary == harness.TurnBoundary {
		return "at the end of the agent's turn"
	}
	return "at the next step"
}

// Pause holds a RUNNING session at the next boundary its agent allows; if
// the turn ends first, the pause is recorded as superseded.
func (e *Engine) Pause(id string) (Receipt, error) {
	return e.control(id, ActPause, sessions.CtlPause, "", func(l *live, c sessions.Control) (string, error) {
		if l.pause != nil {
			e.settleLocked(l, *l.pause, "superseded", "a newer pause was requested")
		}
		l.pause = &c
		if !l.inTurn {
			return "when the session's owner reaches a boundary", nil
		}
		return e.boundaryWord(l), nil
	})
}

// Resume continues a PAUSED session.
func (e *Engine) Resume(id string) (Receipt, error) {
	return e.control(id, ActResume, sessions.CtlResume, "", func(l *live, c sessions.Control) (string, error) {
		if err := e.startTurnLocked(l, "", false); err != nil {
			return "", err
		}
		e.settleLocked(l, c, "applied", "")
		return "now", nil
	})
}

// Stop interrupts the turn in flight at once and keeps the session: it
// then waits for its next input (WAITING awaiting_input).
func (e *Engine) Stop(id string) (Receipt, error) {
	return e.control(id, ActStop, sessions.CtlStop, "", func(l *live, c sessions.Control) (string, error) {
		if l.cancel != nil {
			l.cancel(errStop)
		}
		e.settleLocked(l, c, "applied", "")
		return "now", nil
	})
}

// Cancel ends a session, at once for a turn in flight: the tool call in
// flight gets an interrupted result. It cannot be undone.
func (e *Engine) Cancel(id string) (Receipt, error) {
	return e.control(id, ActCancel, sessions.CtlCancel, "", func(l *live, c sessions.Control) (string, error) {
		e.settleLocked(l, c, "applied", "")
		if l.inTurn {
			l.cancel(errCancel)
			return "now", nil
		}
		e.supersedePauseLocked(l, "the session was cancelled")
		l.log.AppendTurn(sessions.TurnEvent{Time: e.opts.Now(), Turn: l.rec.Turns, Kind: "cancel"})
		e.endLocked(l, sessions.Cancelled, "")
		return "now", nil
	})
}

// CloseSession ends a continuous session that waits for its next input.
func (e *Engine) CloseSession(id string) (Receipt, error) {
	return e.control(id, ActClose, sessions.CtlClose, "", func(l *live, c sessions.Control) (string, error) {
		if l.rec.Mode != sessions.Continuous {
			return "", &TransitionError{Session: l.rec.ID, Status: l.rec.Status, Action: "close", Why: "only continuous sessions close"}
		}
		e.settleLocked(l, c, "applied", "")
		e.endLocked(l, sessions.Completed, "")
		return "now", nil
	})
}

// Send gives a session a prompt: a WAITING session starts its next turn
// with it; otherwise it joins the input queue and starts the turn after the
// current one.
func (e *Engine) Send(id, text string) (Receipt, error) {
	return e.input(id, ActPrompt, sessions.CtlPrompt, text)
}

// Steer adds an instruction to a running turn, delivered at the next
// boundary its agent allows; a WAITING session takes it as its next input.
func (e *Engine) Steer(id, text string) (Receipt, error) {
	return e.input(id, ActSteer, sessions.CtlSteer, text)
}

func (e *Engine) input(id string, a Action, kind sessions.ControlKind, text string) (Receipt, error) {
	if text == "" {
		return Receipt{}, fmt.Errorf("%s: empty text", a)
	}
	return e.control(id, a, kind, text, func(l *live, c sessions.Control) (string, error) {
		l.queue = append(l.queue, c)
		e.publishQueueLocked(l)
		switch l.rec.Status {
		case sessions.Waiting:
			e.nextInputLocked(l)
			return "now", nil
		case sessions.Created:
			return "when the session starts", nil
		}
		if kind == sessions.CtlSteer {
			return e.boundaryWord(l), nil
		}
		return "queued: after the current turn", nil
	})
}

// SetModel queues a model change, applied at the next boundary.
func (e *Engine) SetModel(id, model string) (Receipt, error) {
	return e.control(id, ActSteer, sessions.CtlModel, model, e.queueSetting)
}

// SetApproval queues an approval-policy change, applied at the next boundary.
func (e *Engine) SetApproval(id, policy string) (Receipt, error) {
	switch policy {
	case PolicyAsk, PolicyAuto, PolicyReadOnly:
	default:
		return Receipt{}, fmt.Errorf("approval policy must be ask, auto or read-only, not %q", policy)
	}
	return e.control(id, ActSteer, sessions.CtlApproval, policy, e.queueSetting)
}

func (e *Engine) queueSetting(l *live, c sessions.Control) (string, error) {
	if !l.inTurn {
		e.applyQueuedLocked(l, c)
		return "now", nil
	}
	l.queue = append(l.queue, c)
	e.publishQueueLocked(l)
	return "at the next step", nil
}

// Queue returns a session's pending inputs, in order.
func (e *Engine) Queue(id string) ([]sessions.Control, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return nil, err
	}
	return append([]sessions.Control(nil), l.queue...), nil
}

// RemoveQueued takes a pending input out of the queue.
func (e *Engine) RemoveQueued(id, controlID string) error {
	return e.editQueue(id, controlID, func(l *live, i int, c sessions.Control) {
		l.queue = append(l.queue[:i], l.queue[i+1:]...)
		e.settleLocked(l, c, "removed", "")
	})
}

// MoveQueued moves a pending input to position to (0 is next).
func (e *Engine) MoveQueued(id, controlID string, to int) error {
	return e.editQueue(id, controlID, func(l *live, i int, c sessions.Control) {
		l.moveQueued(c.ID, to)
		l.log.AppendControl(sessions.Control{ID: c.ID, Kind: c.Kind, Time: e.opts.Now(), Outcome: "moved", Index: to})
	})
}

func (e *Engine) editQueue(id, controlID string, edit func(l *live, i int, c sessions.Control)) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return err
	}
	for i, c := range l.queue {
		if c.ID == controlID {
			edit(l, i, c)
			e.publishQueueLocked(l)
			return nil
		}
	}
	return fmt.Errorf("queued item %s of session %s: %w", controlID, id, ErrNotQueued)
}

// Nudge fires a parked session's timer or event now.
func (e *Engine) Nudge(id string) (Receipt, error) {
	return e.control(id, ActNudge, sessions.CtlNudge, "", func(l *live, c sessions.Control) (string, error) {
		n := 0
		for _, w := range l.open {
			if w.it.Kind == sessions.Park {
				e.resolveLocked(l, w, Answer{By: "nudge"})
				n++
			}
		}
		if n == 0 {
			return "", &TransitionError{Session: l.rec.ID, Status: l.rec.Status, Action: "nudge", Why: "it is not parked on a timer or an event"}
		}
		e.settleLocked(l, c, "applied", "")
		return "now", nil
	})
}

// FireEvent wakes every park of the workspace that waits on the named event.
func (e *Engine) FireEvent(name string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, l := range e.live {
		for _, w := range l.open {
			if w.it.Kind == sessions.Park && w.it.Event == name {
				e.resolveLocked(l, w, Answer{By: "event " + name})
				n++
			}
		}
	}
	return n
}

// Archive hides a session from the default lists; Unarchive shows it again.
func (e *Engine) Archive(id string, archived bool) error {
	_, err := e.control(id, ActArchive, sessions.CtlArchive, fmt.Sprint(archived), func(l *live, c sessions.Control) (string, error) {
		l.rec.Archived = archived
		e.settleLocked(l, c, "applied", "")
		return "now", e.saveLocked(l)
	})
	return err
}

// Grants lists a session's "allow for this session" grants.
func (e *Engine) Grants(id string) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return nil, err
	}
	var out []string
	for g := range l.grants {
		out = append(out, g)
	}
	return out, nil
}

// Revoke withdraws a grant; the next such call asks again.
func (e *Engine) Revoke(id, grant string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return err
	}
	if !l.grants[grant] {
		return fmt.Errorf("session %s has no grant %q", id, grant)
	}
	delete(l.grants, grant)
	return l.log.AppendInteraction(sessions.Interaction{ID: sessions.NewID(), Kind: "grant_revoked",
		Resolved: true, Text: grant, Time: e.opts.Now()})
}
