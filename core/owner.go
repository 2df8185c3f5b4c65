package core

import (
	"fmt"
	"os"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// followEvery is how often an engine looks at the store for what other
// processes wrote: controls for the sessions it owns, and the progress of
// the sessions others own.
const followEvery = 100 * time.Millisecond

// adoptLocked decides, at open, whether this engine runs a session: a live
// session whose lease is free is claimed, recovered and handed the controls
// recorded while nobody ran it; one another process holds is followed.
func (e *Engine) adoptLocked(l *live) {
	e.markReadLocked(l)
	if l.readOnly {
		return
	}
	if l.rec.Status == sessions.Ended {
		if l.rec.CommitPending && !e.opts.NoHistory {
			// It ended, but the crash came before its turn's commit.
			e.queueCommitLocked(&commitJob{l: l, turn: e.turnCommitLocked(l), done: make(chan struct{})})
			l.repairs = append(l.repairs, sessions.Repair{File: "session.json",
				Action: fmt.Sprintf("turn %d had ended without its history commit: committed now", l.rec.Turns)})
		}
		return
	}
	if !e.mayRunLocked(l.rec.ID) {
		return
	}
	f, ok := e.claim(l.rec.ID)
	if !ok {
		return
	}
	l.owned, l.leaseFile = true, f
	l.repairs = withCut(l.repairs, e.cutTorn(l.rec.ID))
	e.recoverLocked(l)
	e.applyPendingLocked(l)
}

// markReadLocked notes how far the session's files have been read.
func (e *Engine) markReadLocked(l *live) {
	l.offCtl = sessions.Size(l.log.Path(sessions.ControlsFile))
	l.offIts = sessions.Size(l.log.Path(sessions.InteractionsFile))
	l.offKeys = sessions.Size(l.log.Path(sessions.KeysFile))
	l.recStamp = stamp(e.store.Dir(l.rec.ID) + "/session.json")
}

func (e *Engine) applyPendingLocked(l *live) {
	pend := l.pending
	l.pending = nil
	for _, c := range pend {
		if _, err := e.applyLocked(l, c); err != nil {
			e.settleLocked(l, c, "refused", err.Error())
		}
	}
}

func stamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
}

// idleFollowEvery is how often an engine looks at the store when none of
// its sessions is live (all ended, or none): only a new session or a
// change to an ended one (archived, its commit made) can come then, and a
// second is soon enough for those. An idle engine wakes once a second
// instead of ten times.
const idleFollowEvery = time.Second

// follow runs until the engine closes, picking up what other processes
// write to the store: every followEvery while a session is live, every
// idleFollowEvery otherwise. New sessions and a lost workspace are looked
// for every idleFollowEvery, leases rewritten every heartbeatEvery.
func (e *Engine) follow() {
	defer e.wg.Done()
	t := time.NewTimer(followEvery)
	defer t.Stop()
	var swept, beat time.Time // real time: the clock in opts may be a test's
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-t.C:
		case <-e.followWake:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		}
		real := time.Now()
		e.mu.Lock()
		if real.Sub(swept) >= idleFollowEvery {
			swept = real
			e.checkWorkspaceLocked()
			e.discoverLocked()
		}
		now := e.opts.Now()
		busy := false
		for _, l := range e.live {
			if l.owned {
				e.foreignControlsLocked(l)
				e.watchLocked(l, now)
			} else {
				e.followLocked(l)
			}
			busy = busy || (l.rec.Status != sessions.Ended && !l.readOnly)
		}
		if real.Sub(beat) >= heartbeatEvery {
			beat = real
			for _, l := range e.live {
				if l.owned {
					e.writeLease(l.leaseFile, l.rec.CreatedAt)
				}
			}
		}
		e.mu.Unlock()
		if busy {
			t.Reset(followEvery)
		} else {
			t.Reset(idleFollowEvery)
		}
	}
}

// wakeFollow has the follow loop run now: a session just became live here.
func (e *Engine) wakeFollow() {
	select {
	case e.followWake <- struct{}{}:
	default:
	}
}

// foreignControlsLocked applies the controls other processes recorded for
// a session this engine owns.
func (e *Engine) foreignControlsLocked(l *live) {
	var news []sessions.Control
	l.offCtl, _ = sessions.ReadFrom(l.log.Path(sessions.ControlsFile), l.offCtl, func(line []byte) {
		var c sessions.Control
		if sessions.DecodeLine(line, &c) == nil && c.Outcome == "" && c.Origin != e.owner && c.ID != "" {
			news = append(news, c)
		}
	})
	for _, c := range news {
		if _, err := e.applyLocked(l, c); err != nil {
			e.settleLocked(l, c, "refused", err.Error())
		}
	}
}

// followLocked brings a session another process owns up to date from the
// store, and takes it over when its owner is gone.
func (e *Engine) followLocked(l *live) {
	if l.readOnly {
		return
	}
	if st := stamp(e.store.Dir(l.rec.ID) + "/session.json"); st != l.recStamp {
		l.recStamp = st
		if en, err := e.store.Load(l.rec.ID); err == nil && !en.ReadOnly {
			l.rec = *en.Session
			rec := l.rec
			e.bus.publish(Event{Kind: EvSession, SessionID: rec.ID, Session: &rec})
		}
	}
	if l.loaded {
		l.offMsg, _ = sessions.ReadFrom(l.log.Path(sessions.MessagesFile), l.offMsg, func(line []byte) {
			var m sessions.Message
			if sessions.DecodeLine(line, &m) != nil || m.ID == "" {
				return
			}
			if i, ok := l.msgIdx[m.ID]; ok {
				if m.Rev < l.msgs[i].Rev {
					return
				}
				l.msgs[i] = m
			} else {
				l.msgIdx[m.ID] = len(l.msgs)
				l.msgs = append(l.msgs, m)
			}
			cp := m.Clone()
			e.bus.publish(Event{Kind: EvMessage, SessionID: l.rec.ID, Message: &cp})
		})
	}
	// Keys the owner recorded: a follower's KeyResult stays current.
	l.offKeys, _ = sessions.ReadFrom(l.log.Path(sessions.KeysFile), l.offKeys, func(line []byte) {
		var k sessions.KeyRecord
		if sessions.DecodeLine(line, &k) != nil || k.Key == "" {
			return
		}
		if k.State == sessions.KeyForgotten {
			delete(l.keys, k.Key)
			return
		}
		l.keys[k.Key] = k
	})
	l.offIts, _ = sessions.ReadFrom(l.log.Path(sessions.InteractionsFile), l.offIts, func(line []byte) {
		var it sessions.Interaction
		if sessions.DecodeLine(line, &it) != nil || it.ID == "" {
			return
		}
		if it.Resolved {
			delete(l.open, it.ID)
		} else {
			l.open[it.ID] = newWaiter(it)
		}
		cp := it
		e.bus.publish(Event{Kind: EvInteraction, SessionID: l.rec.ID, Interaction: &cp})
	})
	if e.opts.Passive || l.rec.Status == sessions.Ended || !e.mayRunLocked(l.rec.ID) {
		return
	}
	if f, ok := e.claim(l.rec.ID); ok {
		e.takeOverLocked(l, f)
	}
}

// takeOverLocked makes this engine the owner of a session whose owner died:
// its state is read afresh from the store, then recovered like at open.
func (e *Engine) takeOverLocked(old *live, f *os.File) {
	cut := e.cutTorn(old.rec.ID)
	en, err := e.store.Load(old.rec.ID)
	if err != nil {
		dropLease(f)
		return
	}
	l := e.load(en)
	l.repairs = append(l.repairs, cut...)
	e.live[l.rec.ID] = l
	l.owned, l.leaseFile = true, f
	e.markReadLocked(l)
	rec := l.rec
	e.bus.publish(Event{Kind: EvSession, SessionID: rec.ID, Session: &rec})
	e.recoverLocked(l)
	e.applyPendingLocked(l)
}

// Focus marks a session as one this engine stays with (a command that
// follows it to its next stop): a Focused engine runs it when no process
// does, now or once its owner dies, as it runs the sessions it created.
func (e *Engine) Focus(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.opts.Passive || e.closed {
		return
	}
	e.focus[id] = true
	l, ok := e.live[id]
	if !ok || l.owned || l.readOnly || l.rec.Status == sessions.Ended {
		return
	}
	if f, ok := e.claim(id); ok {
		e.takeOverLocked(l, f)
	}
}

// mayRunLocked says whether this engine may adopt a session no process
// runs: any, unless it is Focused, which runs only its own (focus).
func (e *Engine) mayRunLocked(id string) bool {
	return !e.opts.Focused || e.focus[id]
}

// discoverLocked picks up sessions other processes created.
func (e *Engine) discoverLocked() {
	ids, err := e.store.IDs()
	if err != nil {
		return
	}
	for _, id := range ids {
		if _, ok := e.live[id]; ok {
			continue
		}
		en, err := e.store.Load(id)
		if err != nil {
			continue
		}
		l := e.load(en)
		e.live[l.rec.ID] = l
		rec := l.rec
		e.bus.publish(Event{Kind: EvSession, SessionID: rec.ID, Session: &rec})
		if !e.opts.Passive {
			e.adoptLocked(l)
		}
	}
}
