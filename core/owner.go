package core

import (
	"fmt"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// watchEvery is how often a running engine looks at its sessions while one
// is in a turn: the stuck watchdog's resolution.
const watchEvery = 100 * time.Millisecond

// idleWatchEvery is how often it looks while sessions are live but none is
// in a turn: only a vanished workspace can come then, and a second is soon
// enough to end its sessions. With nothing live the loop sleeps until a
// session becomes live here (wakeWatch): an idle engine does no work.
const idleWatchEvery = time.Second

// adoptLocked decides, at open, what a running engine does with a session:
// one that ended is settled (a commit the crash left pending); a live one
// is this engine's to run (it holds the workspace's lease, so no other
// process does): its torn tails are cut, it is recovered and handed the
// controls recorded while no engine ran.
func (l *live) adoptLocked() {
	e := l.e
	if l.readOnly {
		return
	}
	l.owned = true
	if l.rec.Status == sessions.Ended {
		if l.rec.CommitPending && !e.opts.NoHistory {
			// It ended, but the crash came before its turn's commit.
			e.commits.push(&commitJob{l: l, turn: l.turnCommitLocked(), done: make(chan struct{})})
			l.repairs = append(l.repairs, sessions.Repair{File: "session.json",
				Action: fmt.Sprintf("turn %d had ended without its history commit: committed now", l.rec.Turns)})
		}
		return
	}
	l.repairs = withCut(l.repairs, cutTorn(e.store, l.rec.ID))
	l.recoverLocked()
	l.applyPendingLocked()
}

func (l *live) applyPendingLocked() {
	pend := l.pending
	l.pending = nil
	for _, c := range pend {
		if _, err := l.applyLocked(c); err != nil {
			l.settleLocked(c, "refused", err.Error())
		}
	}
}

// watch runs until the engine closes: the stuck watchdog for sessions in a
// turn, and the check that the workspace is still there. Nothing here
// reads the store for what other processes wrote: none writes to it.
func (e *Engine) watch() {
	defer e.wg.Done()
	t := time.NewTimer(watchEvery)
	defer t.Stop()
	var checked time.Time // real time: the clock in opts may be a test's
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-t.C:
		case <-e.watchWake:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		}
		real := time.Now()
		e.mu.Lock()
		if real.Sub(checked) >= idleWatchEvery {
			checked = real
			e.checkWorkspaceLocked()
		}
		now := e.opts.Now()
		inTurn, live := false, false
		for _, l := range e.live {
			if !l.owned || l.rec.Status == sessions.Ended {
				continue
			}
			live = true
			if l.inTurn {
				inTurn = true
				l.watchLocked(now)
			}
		}
		e.mu.Unlock()
		switch {
		case inTurn:
			t.Reset(watchEvery)
		case live:
			t.Reset(idleWatchEvery)
		}
		// Neither: the timer stays stopped until wakeWatch.
	}
}

// wakeWatch has the watch loop run now: a session just became live here or
// started a turn, so the loop's slower pace (or its sleep) never delays
// the watchdog.
func (e *Engine) wakeWatch() {
	select {
	case e.watchWake <- struct{}{}:
	default:
	}
}
