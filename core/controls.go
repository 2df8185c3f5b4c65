package core

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// Receipt acknowledges a control (engine.Receipt).
type Receipt = engine.Receipt

// actionOf maps a control to the lifecycle action it is checked against.
var actionOf = map[sessions.ControlKind]Action{
	sessions.CtlStart: ActStart, sessions.CtlPause: ActPause, sessions.CtlResume: ActResume,
	sessions.CtlStop: ActStop, sessions.CtlCancel: ActCancel, sessions.CtlClose: ActClose,
	sessions.CtlSteer: ActSteer, sessions.CtlPrompt: ActPrompt, sessions.CtlNudge: ActNudge,
	sessions.CtlArchive: ActArchive, sessions.CtlModel: ActSteer, sessions.CtlApproval: ActSteer,
	sessions.CtlDelete: ActDelete, sessions.CtlCompact: ActSteer, sessions.CtlClear: ActSteer,
}

// submit is the one path of every control: look the session up, check the
// action against the lifecycle, record the request durably, then apply it
// (a passive engine: see unowned).
func (e *Engine) submit(id string, c sessions.Control) (Receipt, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.store.ReadOnly() {
		return Receipt{}, e.readOnlyErr()
	}
	l, err := e.getLocked(id)
	if err != nil {
		return Receipt{}, err
	}
	if l.broken {
		// Its failure could not even be recorded: nothing more can be.
		return Receipt{}, l.storeErr
	}
	// A repeated key answers with its record whatever the session's status
	// now (a key whose turn was cancelled returns that outcome).
	if (c.Kind == sessions.CtlPrompt || c.Kind == sessions.CtlSteer) && c.Key != "" {
		if rc, ok, err := l.repeatedKeyLocked(c); ok {
			return rc, err
		}
	}
	if c.Kind == sessions.CtlClose && l.rec.Status == sessions.Ended && !l.readOnly {
		// Closing what is closed is harmless (the product's contract): the
		// same answer on every surface, and nothing is recorded.
		return Receipt{When: fmt.Sprintf("already ENDED (%s); nothing to do", l.rec.EndReason)}, nil
	}
	if a, ok := actionOf[c.Kind]; ok {
		if err := l.checkLocked(a); err != nil {
			return Receipt{}, err
		}
	}
	if (c.Kind == sessions.CtlPrompt || c.Kind == sessions.CtlSteer) && c.Key != "" {
		if !l.owned {
			// The owner may not have applied an earlier request with this
			// key yet: the control log has it.
			prev, ok, err := keyedControl(l, c)
			if err != nil {
				return Receipt{}, err
			}
			if ok {
				return Receipt{ID: prev, When: "already sent (idempotency key " + c.Key + ")"}, nil
			}
		}
	}
	c.ID, c.Time, c.Origin = sessions.NewID(), e.opts.Now(), e.owner
	if !l.owned {
		var done bool
		var rc Receipt
		if l, rc, done, err = e.unowned(l, c); done || err != nil {
			return rc, err
		}
	}
	if err := l.log.AppendControl(c); err != nil {
		return Receipt{}, fmt.Errorf("record %s of session %s: %w", c.Kind, l.rec.ID, err)
	}
	when, err := l.applyLocked(c)
	if err != nil {
		l.settleLocked(c, "refused", err.Error())
		return Receipt{}, err
	}
	return Receipt{ID: c.ID, When: when}, nil
}

// keyedControl finds a prompt or steer with the key that is recorded and
// not yet settled (the owner has not applied it yet): the same text is a
// repeat, other text a conflict.
func keyedControl(l *live, c sessions.Control) (string, bool, error) {
	ctls, _, err := l.log.Controls()
	if err != nil {
		return "", false, err
	}
	settled := map[string]bool{}
	for _, x := range ctls {
		if settles(x) {
			settled[x.ID] = true
		}
	}
	for _, x := range ctls {
		if x.Key != c.Key || x.Outcome != "" || settled[x.ID] || (x.Kind != sessions.CtlPrompt && x.Kind != sessions.CtlSteer) {
			continue
		}
		if x.Text != c.Text || !bytes.Equal(x.Output, c.Output) {
			return "", true, fmt.Errorf("key %q of session %s: %w", c.Key, l.rec.ID, ErrKeyConflict)
		}
		return x.ID, true, nil
	}
	return "", false, nil
}

// grantRevoked marks, in interactions.jsonl, a revoked session grant.
const grantRevoked sessions.InteractionKind = "grant_revoked"

// passiveKinds are the controls a short command applies itself when no
// engine runs the workspace: none of them starts a turn.
var passiveKinds = map[sessions.ControlKind]bool{
	sessions.CtlCancel: true, sessions.CtlClose: true, sessions.CtlArchive: true,
	sessions.CtlUnqueue: true, sessions.CtlMove: true, sessions.CtlEdit: true, sessions.CtlRevoke: true,
	sessions.CtlModel: true, sessions.CtlApproval: true,
}

// unowned handles a control on a passive engine, which runs nothing. While
// an engine runs the workspace elsewhere it refuses (a *BusyError): the
// control goes through that engine's host. While none does, it holds the
// lease for the write, then applies the control itself if it starts no
// turn, or records it for the next engine that opens the workspace. It
// returns the live state to apply to when the caller should go on (done
// false); with a passive engine it never does.
func (e *Engine) unowned(l *live, c sessions.Control) (*live, Receipt, bool, error) {
	if e.lease.held() {
		// A running engine runs every session it can: this one is held
		// read-only (its repairs say why).
		return l, Receipt{}, true, fmt.Errorf("session %s is held read-only: %w", l.rec.ID, ErrReadOnlyState)
	}
	if err := e.lease.take(0); err != nil {
		return l, Receipt{}, true, err
	}
	defer e.lease.drop()
	if !passiveKinds[c.Kind] {
		if err := l.log.AppendControl(c); err != nil {
			return l, Receipt{}, true, fmt.Errorf("record %s of session %s: %w", c.Kind, l.rec.ID, err)
		}
		return l, Receipt{ID: c.ID, When: "recorded: applied when the workspace's engine next runs the session"}, true, nil
	}
	// Read afresh under the lease: the store is as the last engine left it.
	cut := cutTorn(e.store, l.rec.ID)
	en, err := e.store.Load(l.rec.ID)
	if err != nil {
		return l, Receipt{}, true, err
	}
	nl := e.load(en)
	nl.repairs = append(nl.repairs, cut...)
	e.live[nl.rec.ID] = nl
	nl.owned = true
	defer func() { nl.owned = false }()
	if a, ok := actionOf[c.Kind]; ok {
		if err := nl.checkLocked(a); err != nil {
			return nl, Receipt{}, true, err
		}
	}
	if err := nl.log.AppendControl(c); err != nil {
		return nl, Receipt{}, true, err
	}
	when, err := nl.applyLocked(c)
	if err != nil {
		nl.settleLocked(c, "refused", err.Error())
	}
	return nl, Receipt{ID: c.ID, When: when}, true, err
}

// applyLocked carries out a recorded control on a session this engine owns.
func (l *live) applyLocked(c sessions.Control) (string, error) {
	e := l.e
	if a, ok := actionOf[c.Kind]; ok {
		if err := l.checkLocked(a); err != nil {
			return "", err
		}
	}
	switch c.Kind {
	case sessions.CtlStart:
		l.settleLocked(c, "applied", "")
		return "now", l.startLocked()
	case sessions.CtlPause:
		if l.pause != nil {
			l.settleLocked(*l.pause, "superseded", "a newer pause was requested")
		}
		l.pause = &c
		l.askPauseLocked()
		return l.boundaryWord(), nil
	case sessions.CtlResume:
		if l.rec.Status == sessions.Created {
			// Resume activates a session created without starting (the
			// seeds' word for it; start stays).
			l.settleLocked(c, "applied", "")
			return "now", l.startLocked()
		}
		if l.rec.BetweenTurns {
			l.rec.BetweenTurns = false
			l.settleLocked(c, "applied", "")
			return "now", l.resumeBetweenTurnsLocked()
		}
		if err := l.startTurnLocked(nil); err != nil {
			return "", err
		}
	case sessions.CtlStop:
		l.interruptLocked(intentStop)
	case sessions.CtlCancel:
		l.settleLocked(c, "applied", "")
		if l.interruptLocked(intentCancel) {
			return "now", nil
		}
		l.cancelIdleLocked()
		return "now", nil
	case sessions.CtlClose:
		// A session between turns (or waiting on a question or a stop
		// limit) ends completed; one that never ran ends completed with
		// nothing allocated.
		l.settleLocked(c, "applied", "")
		l.endLocked(sessions.Completed, "")
		return "now", nil
	case sessions.CtlPrompt, sessions.CtlSteer:
		return l.queueInputLocked(c), nil
	case sessions.CtlCompact, sessions.CtlClear:
		l.queue = append(l.queue, c)
		l.publishQueueLocked()
		if l.rec.Status == sessions.Waiting {
			l.nextInputLocked()
			return "now", nil
		}
		return "after the current turn", nil
	case sessions.CtlModel, sessions.CtlApproval:
		if !l.inTurn {
			l.applyQueuedLocked(c)
			return "now", nil
		}
		l.queue = append(l.queue, c)
		l.publishQueueLocked()
		return "at the next step", nil
	case sessions.CtlNudge:
		if l.fireParksLocked(func(it sessions.Interaction) bool { return true }, Answer{By: "nudge"}) == 0 {
			return "", &TransitionError{Session: l.rec.ID, Status: l.rec.Status, Action: "nudge", Why: "it is not parked on a timer or an event"}
		}
	case sessions.CtlArchive:
		l.rec.Archived = c.Text == "true"
		l.saveLocked()
		if l.storeErr != nil {
			return "", l.storeErr
		}
	case sessions.CtlAnswer:
		w, ok := l.open[c.Target]
		if !ok {
			return "", l.unknownInteractionLocked(c.Target)
		}
		if w.it.Kind == sessions.Stuck {
			if err := l.answerStuckLocked(w, Answer{Text: c.Text, Message: c.Message, By: c.Detail}); err != nil {
				return "", err
			}
			break
		}
		if _, err := l.answerLocked(w, Answer{Decision: c.Decision, Message: c.Message, Text: c.Text, Prefix: c.Prefix, By: c.Detail}); err != nil {
			return "", err
		}
	case sessions.CtlUnqueue, sessions.CtlMove, sessions.CtlEdit:
		if err := l.editQueueLocked(c); err != nil {
			return "", err
		}
	case sessions.CtlRevoke:
		if _, ok := l.grants[c.Target]; !ok {
			return "", fmt.Errorf("session %s has no grant %q", l.rec.ID, c.Target)
		}
		// Recorded beside the grants, in order, so a reload rebuilds the
		// same set (a later grant of the same key counts again).
		if err := l.log.AppendInteraction(sessions.Interaction{ID: sessions.NewID(), Kind: grantRevoked,
			Resolved: true, Text: c.Target, Time: e.opts.Now()}); err != nil {
			return "", err
		}
		l.grants.revoke(c.Target)
	case sessions.CtlDelete:
		id := l.rec.ID
		go func() {
			if err := e.Delete(id); err != nil {
				e.mu.Lock()
				e.bus.publish(Event{Kind: EvNotice, SessionID: id, Text: "delete failed: " + err.Error()})
				e.mu.Unlock()
			}
		}()
		return "now", nil
	default:
		return "", fmt.Errorf("unknown control %q", c.Kind)
	}
	l.settleLocked(c, "applied", "")
	return "now", nil
}

func (l *live) boundaryWord() string {
	h, _, err := l.agentLocked()
	if err == nil && h.Caps().Boundary == harness.TurnBoundary {
		return "at the end of the agent's turn"
	}
	return "at the next step"
}

// queueInputLocked puts a prompt or steer in the queue: a WAITING session
// takes it as its next input at once.
func (l *live) queueInputLocked(c sessions.Control) string {
	if c.Kind == sessions.CtlSteer && l.inTurn {
		if h, _, err := l.agentLocked(); err == nil && h.Caps().SteerMidTurn {
			if st, ok := h.(harness.Steerer); ok {
				go l.steerAgent(st, c)
				return "now, through the agent's own input"
			}
		}
	}
	l.queue = append(l.queue, c)
	if c.Key != "" {
		l.keyLocked(sessions.KeyRecord{Key: c.Key, Op: c.ID, State: sessions.KeyQueued,
			Digest: promptDigest(c.Text, c.Output)})
	}
	l.publishQueueLocked()
	switch l.rec.Status {
	case sessions.Waiting:
		l.nextInputLocked()
		return "now"
	case sessions.Created:
		return "when the session starts"
	}
	if c.Kind == sessions.CtlSteer {
		return l.boundaryWord()
	}
	return "queued: after the current turn"
}

// steerAgent hands a steer to an agent that takes it mid-turn. Only once
// the agent took it is it applied (and shown as the user's message); when
// the agent refuses (its turn just ended, say), the steer goes back to the
// head of the queue, so it is the session's next input: never lost.
func (l *live) steerAgent(st harness.Steerer, c sessions.Control) {
	e := l.e
	err := st.Steer(e.ctx, l.rec.ID, c.Text)
	e.mu.Lock()
	defer e.mu.Unlock()
	if l.rec.Status == sessions.Ended {
		l.settleLocked(c, "refused", "the session ended")
		return
	}
	if err == nil {
		if l.userMessageLocked(c.Text, c.ID) == nil {
			l.settleLocked(c, "applied", "through the agent's own input")
		}
		return
	}
	e.bus.publish(Event{Kind: EvNotice, SessionID: l.rec.ID, Text: "the agent did not take the steer (" + err.Error() + "): it is queued as the next input"})
	l.queue = append([]sessions.Control{c}, l.queue...)
	l.publishQueueLocked()
	if l.rec.Status == sessions.Waiting && !l.inTurn {
		l.nextInputLocked()
	}
}

// cancelIdleLocked ends a session with no turn in flight. A PAUSED turn
// (held mid-turn) ends here: it gets its cancel line and its one commit.
func (l *live) cancelIdleLocked() {
	e := l.e
	openTurn := l.rec.Status == sessions.Paused && !l.rec.BetweenTurns
	l.supersedePauseLocked("the session was cancelled")
	l.interruptDanglingLocked("cancelled by the operator")
	if openTurn {
		l.appendTurnLocked(sessions.TurnEvent{Time: e.opts.Now(), Turn: l.rec.Turns, Kind: "cancel"})
	}
	l.endLocked(sessions.Cancelled, "")
	if openTurn {
		l.turnEndedLocked("cancel", nil)
	}
}

// resumeBetweenTurnsLocked starts the turn a pause held back, with the next
// queued input (queued settings changes apply on the way).
func (l *live) resumeBetweenTurnsLocked() error {
	for len(l.queue) > 0 {
		c := l.queue[0]
		l.queue = l.queue[1:]
		if c.Kind == sessions.CtlPrompt || c.Kind == sessions.CtlSteer {
			return l.takeInputLocked(c)
		}
		l.applyQueuedLocked(c)
	}
	// The queue was emptied while paused: go on from where the agent is.
	return l.startTurnLocked(&turnInput{text: "Continue."})
}

// editQueueLocked removes, moves or edits a queued item. It holds the
// engine's lock, as taking an item for a turn does: an item is edited
// whole before a turn takes it, or not at all (ErrNotQueued).
func (l *live) editQueueLocked(c sessions.Control) error {
	e := l.e
	for i, q := range l.queue {
		if q.ID != c.Target {
			continue
		}
		switch c.Kind {
		case sessions.CtlUnqueue:
			l.queue = append(l.queue[:i], l.queue[i+1:]...)
			l.settleLocked(q, "removed", "")
		case sessions.CtlEdit:
			if q.Kind != sessions.CtlPrompt && q.Kind != sessions.CtlSteer {
				return fmt.Errorf("queued item %s (%s) of session %s: %w", q.ID, q.Kind, l.rec.ID, ErrNotEditable)
			}
			// The item keeps its id, its place and its key (whose digest
			// stays the sent text's: a retry of the original send is a
			// repeat of this item, not a conflict).
			l.queue[i].Text = c.Text
			l.storeFailedLocked(l.log.AppendControl(sessions.Control{ID: q.ID, Kind: q.Kind, Time: e.opts.Now(), Outcome: "edited", Text: c.Text}))
		default:
			l.moveQueued(q.ID, c.Index)
			l.storeFailedLocked(l.log.AppendControl(sessions.Control{ID: q.ID, Kind: q.Kind, Time: e.opts.Now(), Outcome: "moved", Index: c.Index}))
		}
		l.publishQueueLocked()
		return nil
	}
	return fmt.Errorf("queued item %s of session %s: %w", c.Target, l.rec.ID, ErrNotQueued)
}

// settles reports whether a line of controls.jsonl settles its request:
// "moved" and "edited" change a queued item that stays pending.
func settles(c sessions.Control) bool {
	return c.Outcome != "" && c.Outcome != "moved" && c.Outcome != "edited"
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

// Grants lists a session's "allow for this session" grants.
func (e *Engine) Grants(id string) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l.grants))
	for k := range l.grants {
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}

// FireEvent wakes every park of the workspace that waits on the named
// event (the wait tool's event), with data (JSON, or "") as what the wait
// tool returns to its agent, and says how many it woke. It then publishes
// the event itself (EvSignal, with an id unique to this firing) for the
// engine's other listeners: the triggers that start sessions on it.
func (e *Engine) FireEvent(name, data string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, l := range e.live {
		n += l.fireParksLocked(func(it sessions.Interaction) bool { return it.Event == name }, Answer{By: "event " + name, Text: data})
	}
	e.bus.publish(Event{Kind: EvSignal, Text: name, Signal: &Signal{ID: sessions.NewID(), Name: name, Data: data, Woken: n}})
	return n
}

func (l *live) fireParksLocked(match func(sessions.Interaction) bool, a Answer) int {
	n := 0
	for _, w := range l.open {
		if w.it.Kind == sessions.Park && match(w.it) {
			l.resolveLocked(w, a)
			n++
		}
	}
	return n
}
