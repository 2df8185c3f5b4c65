package core

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/terminal"
)

// live is one session as it runs: its in-memory state, and its
// transitions and its turn as its methods (the ones named ...Locked run
// under Engine.mu, which guards every field). The engine holds the
// sessions, their lock, the bus and the workspace's parts; a session does
// what happens to it, so the engine does not carry each session's state
// machine as methods of its own.
type live struct {
	// e is the engine the session runs in: its lock, bus and parts.
	e        *Engine
	rec      sessions.Session
	log      *sessions.Log
	repairs  []sessions.Repair
	readOnly bool // session.json was unreadable: shown, never driven
	// recoveries counts the resumes of the interrupted turn that ended in a
	// crash (sessions.RecoveryFile); recovering says this engine resumed
	// it and has not yet seen it reach a boundary.
	recoveries int
	recovering bool
	// startLogged says the open turn's start line is in the audit log
	// already, written by the engine that ran it before a crash or a quit:
	// the resumed turn logs its recover line instead of a second start.
	startLogged bool

	msgs    []sessions.Message // nil until loaded
	msgIdx  map[string]int
	loaded  bool
	nextMsg int

	queue []sessions.Control // pending inputs, in order
	open  map[string]*waiter // open interactions by id
	// answered keeps answers to tool calls' interactions given while no
	// turn waited on them (after a quit), for the resumed turn.
	answered map[string]sessions.Interaction
	grants   grantSet                      // "allow for this session" grants, by key
	keys     map[string]sessions.KeyRecord // idempotency keys, latest state
	pause    *sessions.Control             // a pause requested and not yet applied
	// pauseAsked is closed when a pause is requested for the turn in
	// flight (nil once closed): the turn waits on it where it may pause
	// without reaching a step (pauseCut).
	pauseAsked chan struct{}
	inTurn     bool                    // a turn goroutine owns the session
	cancel     context.CancelCauseFunc // cancels the turn in flight
	turnDone   chan struct{}           // closed when the turn goroutine returns

	startTimer *time.Timer

	// vars are the variables the session's client handed over for its
	// agent (HandEnv), in memory only; agentH is the harness its turns
	// last ran in.
	vars   map[string]string
	agentH harness.Harness

	// owned is true while this engine runs the session: a running engine
	// (which holds the workspace's lease) runs every live session it
	// read, a passive one none. pending are the controls recorded while
	// no engine ran it, applied when one adopts it.
	owned   bool
	pending []sessions.Control

	env terminal.Env // the execution environment, made on first use

	// endingCommit is the commit of the turn being ended, described before
	// its final status is saved (commit.go).
	endingCommit *history.TurnCommit
	// deferSave holds saves while a turn's end is settled, so the key's
	// result is on disk before the status that ends the turn (a follower
	// reading the status finds the result); saveDirty says one is due.
	deferSave, saveDirty bool
	// intent is why the turn in flight is being ended (intent.go).
	intent intent
	// recheck names pending tool calls found at a restart without this
	// user's seal: their approval asks whatever the policy (policy.go).
	recheck map[string]bool
	// held names queued settings changes that were queued behind the input
	// of the turn in flight: they apply after it (FIFO).
	held map[string]bool
	// storeErr is the first failed write of the session's state: the
	// session fails with it. broken says even that could not be recorded:
	// the failure lives in memory only and every control reports it.
	storeErr error
	broken   bool

	compacting bool // a compaction runs: inputs wait in the queue

	// Watchdog: when the session last made progress, and the last tool
	// call with how many times in a row it repeated.
	lastProgress time.Time
	lastCall     string
	repeats      int

	// turnLease releases the write lease an agent's whole turn holds
	// (Caps.TurnLease); park gives it up and takes it again. Only the turn
	// goroutine touches it.
	turnLease func()

	// slot says whether the turn goroutine holds a worker slot. Only that
	// goroutine touches it, so it needs no lock.
	slot bool
}

func (l *live) slotHeld() bool { return l.slot }
func (l *live) setSlot(v bool) { l.slot = v }

// waiter is an open interaction and how to resolve it.
type waiter struct {
	it    sessions.Interaction
	done  chan sessions.Interaction // receives the resolution once
	taken chan struct{}             // closed once a turn waits on it
	// yielded says the audit log has the yield of the turn that parked on
	// it; a resumed turn that waits on it again writes none.
	yielded bool
}

func newWaiter(it sessions.Interaction) *waiter {
	return &waiter{it: it, done: make(chan sessions.Interaction, 1), taken: make(chan struct{})}
}

// take marks that a turn waits on the interaction.
func (w *waiter) take() {
	select {
	case <-w.taken:
	default:
		close(w.taken)
	}
}

func (l *live) openOrder() []sessions.Interaction {
	out := make([]sessions.Interaction, 0, len(l.open))
	for _, w := range l.open {
		out = append(out, w.it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

func (e *Engine) sortedLocked() []*live {
	out := make([]*live, 0, len(e.live))
	for _, l := range e.live {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rec.ID < out[j].rec.ID })
	return out
}

// load builds a session's live state from its files.
func (e *Engine) load(en sessions.Entry) *live {
	l := &live{
		e: e, rec: *en.Session, log: e.store.Log(en.Session.ID), repairs: en.Repairs, readOnly: en.ReadOnly,
		open: map[string]*waiter{}, grants: grantSet{}, keys: map[string]sessions.KeyRecord{},
		answered: map[string]sessions.Interaction{},
	}
	if l.readOnly {
		return l
	}
	if l.rec.Status == sessions.Running {
		l.recoveries = e.store.Recoveries(l.rec.ID)
	}
	if n := l.recoveries; n >= sessions.MaxRecoveries {
		// Resuming its turn crashed the engine that many times: a third
		// try would crash this one too.
		l.readOnly = true
		l.repairs = append(l.repairs, sessions.Repair{File: sessions.RecoveryFile, Action: fmt.Sprintf(
			"resuming its interrupted turn crashed the engine %d times: held read-only, not resumed again; "+
				"delete .state/sessions/%s/%s to let the next engine try once more", n, l.rec.ID, sessions.RecoveryFile)})
		return l
	}
	ctls, rep, _ := l.log.Controls()
	l.repairs = append(l.repairs, rep...)
	settled := map[string]bool{}
	for _, c := range ctls {
		if settles(c) {
			settled[c.ID] = true
		}
	}
	for _, c := range ctls {
		if c.Outcome == "moved" && !settled[c.ID] {
			l.moveQueued(c.ID, c.Index)
			continue
		}
		if c.Outcome == "edited" && !settled[c.ID] {
			l.editQueued(c.ID, c.Text)
			continue
		}
		if c.Outcome != "" || settled[c.ID] {
			continue
		}
		switch {
		case c.Kind.Queued():
			l.queue = append(l.queue, c)
		case c.Kind == sessions.CtlPause:
			cc := c
			l.pause = &cc
		default:
			l.pending = append(l.pending, c)
		}
	}
	l.dropDelivered()
	its, rep, _ := l.log.Interactions()
	l.repairs = append(l.repairs, rep...)
	for _, it := range its {
		if it.Resolved {
			delete(l.open, it.ID)
			if it.Decision == sessions.AllowSession && it.Tool != "" {
				l.grants.add(grantOf(it.Tool, it.Command, it.Prefix))
			}
			if it.Kind == grantRevoked {
				l.grants.revoke(it.Text)
			}
			continue
		}
		l.open[it.ID] = newWaiter(it)
	}
	keys, rep, _ := l.log.Keys()
	l.repairs = append(l.repairs, rep...)
	for _, k := range keys {
		if k.State == sessions.KeyForgotten {
			delete(l.keys, k.Key)
			continue
		}
		l.keys[k.Key] = k
	}
	// A keyed input recorded by a process that did not run the session (a
	// short command) has no key line yet: its queue item is its key's item,
	// so the same key sent again is a repeat, not new work.
	for _, c := range l.queue {
		if _, ok := l.keys[c.Key]; c.Key != "" && !ok {
			l.keys[c.Key] = sessions.KeyRecord{Key: c.Key, Op: c.ID, State: sessions.KeyQueued,
				Digest: promptDigest(c.Text, c.Output), Time: c.Time}
		}
	}
	return l
}

func (l *live) moveQueued(id string, to int) {
	for i, c := range l.queue {
		if c.ID == id {
			l.queue = append(l.queue[:i], l.queue[i+1:]...)
			to = min(max(to, 0), len(l.queue))
			l.queue = append(l.queue[:to], append([]sessions.Control{c}, l.queue[to:]...)...)
			return
		}
	}
}

func (l *live) editQueued(id, text string) {
	for i, c := range l.queue {
		if c.ID == id {
			l.queue[i].Text = text
			return
		}
	}
}

// ensureMessages loads the transcript on first use.
func (l *live) ensureMessages() error {
	if l.loaded {
		return nil
	}
	t, rep, err := l.log.Transcript()
	if err != nil {
		return err
	}
	l.repairs = append(l.repairs, rep...)
	l.msgs = t.Messages
	l.indexMessagesLocked()
	l.nextMsg = t.IDs // past the dropped messages' ids too
	l.loaded = true
	return nil
}

// indexMessagesLocked rebuilds the index of the transcript's messages by id.
func (l *live) indexMessagesLocked() {
	l.msgIdx = make(map[string]int, len(l.msgs))
	for i, m := range l.msgs {
		l.msgIdx[m.ID] = i
	}
}

// hasOpenCall reports whether a tool call has an open interaction.
func (l *live) hasOpenCall(callID string) bool {
	for _, w := range l.open {
		if w.it.ToolCall == callID {
			return true
		}
	}
	return false
}

// dropDelivered takes out of the queue the inputs whose message is already
// in the transcript: the engine died between delivering one and recording
// its outcome. That window holds no other write, so the message is among
// the last ones.
func (l *live) dropDelivered() {
	if len(l.queue) == 0 {
		return
	}
	tail, _, err := l.log.MessagesTail(16)
	if err != nil {
		return
	}
	delivered := map[string]bool{}
	for _, m := range tail {
		if m.Input != "" {
			delivered[m.Input] = true
		}
	}
	kept := l.queue[:0]
	for _, c := range l.queue {
		if delivered[c.ID] {
			if err := l.log.AppendControl(sessions.Control{ID: c.ID, Kind: c.Kind, Time: time.Now(), Outcome: "applied",
				Detail: "delivered before a crash"}); err != nil {
				l.repairs = append(l.repairs, sessions.Repair{File: sessions.ControlsFile,
					Action: "input " + c.ID + " was delivered before the crash; recording that failed: " + err.Error()})
			}
			l.repairs = append(l.repairs, sessions.Repair{File: sessions.ControlsFile,
				Action: "input " + c.ID + " was delivered before the crash: not delivered again"})
			continue
		}
		kept = append(kept, c)
	}
	l.queue = kept
}
