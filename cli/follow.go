package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// followOptions say how a command that stays with a session (run, and the
// --wait commands) follows it.
type followOptions struct {
	approve string        // who answers approvals and questions: ask, auto or deny
	timeout time.Duration // cancel the session after this long; 0 never
	// cancelOnInterrupt makes an interrupt (Ctrl-C) cancel the session, as
	// `atelier run` does; otherwise it only stops following, and the
	// session stays resumable.
	cancelOnInterrupt bool
	// atStop, when set, turns the session's stop (nil, or the error with
	// its exit code) into the command's result: a repeated --key reports
	// the result its key recorded.
	atStop func(stop error) error
}

// follow prints a session's events and answers its interactions until the
// session stops: it ends, waits on the operator, or parks on something
// headless mode cannot answer. open are the session's interactions already
// open when the subscription began. The error carries run's exit code.
//
// It never waits without bound on the engine: after a cancel (an
// interrupt, --timeout) the session gets cancelGrace to end, a history
// commit that failed is not waited for, and a second interrupt ends the
// process (armInterrupts).
func follow(ctx context.Context, eng *core.Engine, sub *core.Subscription, id string, open []sessions.Interaction,
	o followOptions, out *printer, s *streams) error {
	defer armInterrupts(ctx)()
	eng.Focus(id) // followed here: run it if no process does
	r := &runner{ctx: ctx, eng: eng, id: id, mode: o.approve, out: out, s: s}
	defer out.finish()
	stopped := func(err error) error {
		if o.atStop != nil {
			return o.atStop(err)
		}
		return err
	}
	last, err := eng.Session(id)
	if err != nil {
		return sessionErr(err)
	}
	r.last = last
	for _, it := range open {
		if !r.answer(it) {
			return stopped(exitFor(ExitNeedsYou, r.last))
		}
	}
	var timeout <-chan time.Time
	if o.timeout > 0 {
		t := time.NewTimer(o.timeout)
		defer t.Stop()
		timeout = t.C
	}
	done := ctx.Done()
	c := &canceller{eng: eng, id: id, out: out}
	for {
		select {
		case _, ok := <-sub.Ready():
			if !ok {
				return withCode(ExitFailed, errors.New("the engine closed while following the session"))
			}
			evs := sub.Drain()
			for i, ev := range evs {
				switch {
				case ev.Kind == core.EvResync:
					// Too far behind: the current record says where it stands.
					rec, err := eng.Session(id)
					if err != nil {
						return err
					}
					ev = core.Event{Kind: core.EvSession, SessionID: id, Session: &rec}
				case ev.Kind == core.EvRemoved && ev.SessionID == id:
					return withCode(ExitFailed, fmt.Errorf("session %s was deleted", id))
				}
				code, stop := r.handle(ev)
				if stop && code == ExitNeedsYou && o.cancelOnInterrupt && ctx.Err() != nil {
					// An interrupt ended a prompt on the terminal: the
					// interrupt cancels, as it does anywhere else.
					stop = false
				}
				if !stop {
					continue
				}
				var commitErr error
				if ev.Kind == core.EvSession && commitComing(eng, id) {
					commitErr = awaitCommit(eng, sub, evs[i+1:], done, id, out)
				}
				return commitFailed(stopped(exitFor(code, r.last)), commitErr, r.last)
			}
		case <-done:
			if !o.cancelOnInterrupt {
				return withCode(ExitNeedsYou, fmt.Errorf("stopped following session %s (%s); it goes on where a studio or a --wait command runs it", id, needs(r.last)))
			}
			done = nil
			c.cancel("interrupted: cancelling")
		case <-timeout:
			c.cancel(fmt.Sprintf("timeout after %s: cancelling", o.timeout))
		case <-c.grace:
			return stopped(c.overdue())
		}
	}
}

// cancelGrace is how long a follower waits for the session to end after
// it asked to cancel it.
const cancelGrace = 10 * time.Second

// canceller cancels the followed session once, and says how long the
// follower still waits for the end.
type canceller struct {
	eng   *core.Engine
	id    string
	out   *printer
	asked bool
	err   error            // the cancel's own failure
	grace <-chan time.Time // fires cancelGrace after the cancel
}

func (c *canceller) cancel(why string) {
	if c.asked {
		return
	}
	c.asked = true
	c.out.notice(c.id, why)
	if _, err := c.eng.Cancel(c.id); err != nil {
		c.err = err
		c.out.notice(c.id, "cancel failed: "+err.Error())
	}
	c.grace = time.After(cancelGrace)
}

// overdue is the result of a follow whose session had not ended
// cancelGrace after the cancel: the command stops waiting. A cancel the
// engine took is durable (a process that runs the session later applies
// it), so the run is reported cancelled; a cancel the engine refused
// fails the command with its error.
func (c *canceller) overdue() error {
	if c.err != nil {
		return withCode(ExitFailed, fmt.Errorf("cancel session %s: %w", c.id, c.err))
	}
	c.out.notice(c.id, fmt.Sprintf("the session has not ended %s after the cancel; closing the engine, which waits for the turn (a second interrupt exits at once)", cancelGrace))
	return withCode(ExitCancelled, fmt.Errorf("session %s: cancel recorded, but its turn had not ended %s later; it ends cancelled when the turn lets go, or in the next process that runs it", c.id, cancelGrace))
}

// stopCode says whether a session's record is a stop for a follower, and
// with which exit code: ENDED by its reason, WAITING on the operator. A
// continuous session waiting for its next message after a turn is a normal
// stop (0).
func stopCode(rec sessions.Session) (int, bool) {
	switch rec.Status {
	case sessions.Ended:
		switch rec.EndReason {
		case sessions.Completed:
			return ExitOK, true
		case sessions.Cancelled:
			return ExitCancelled, true
		}
		return ExitFailed, true
	case sessions.Waiting:
		if rec.Mode == sessions.Continuous && rec.WaitReason == sessions.WaitAwaitingInput {
			return ExitOK, true
		}
		return ExitNeedsYou, true
	}
	return 0, false
}

// exitFor turns the stop of a followed session into the command's error.
func exitFor(code int, last sessions.Session) error {
	switch code {
	case ExitOK:
		return nil
	case ExitFailed:
		if last.Status == sessions.Ended && last.EndReason != sessions.Failed {
			return withCode(code, fmt.Errorf("session %s ended: %s", last.ID, last.EndReason))
		}
		return withCode(code, fmt.Errorf("session %s failed: %s", last.ID, last.Error))
	case ExitCancelled:
		return withCode(code, fmt.Errorf("session %s was cancelled", last.ID))
	}
	return withCode(code, fmt.Errorf("session %s needs the operator (%s): answer it in the studio or with `atelier sessions`", last.ID, needs(last)))
}

func needs(s sessions.Session) string {
	if s.Status == sessions.Waiting {
		return "waiting: " + string(s.WaitReason)
	}
	if s.SubState != "" {
		return string(s.Status) + " " + string(s.SubState)
	}
	return string(s.Status)
}

// commitWait bounds how long a follower waits for the history commit of
// the turn that just stopped.
const commitWait = 15 * time.Second

// commitFailedNotice starts the notice the engine publishes when a turn's
// history commit could not be written (core/commit.go): no commit is
// coming.
const commitFailedNotice = "history commit failed"

// commitComing reports whether this process writes the history commit of
// the turn that just ended: it has a history, runs the session, and the
// commit is still to be made. A session this process took over from an
// owner that had made the commit already has none coming.
func commitComing(eng *core.Engine, id string) bool {
	if eng.History() == nil {
		return false
	}
	if rec, err := eng.Session(id); err != nil || !rec.CommitPending {
		return false
	}
	l, ok := core.ReadLease(eng.Store().Dir(id))
	return ok && l.PID == os.Getpid()
}

// awaitCommit waits for the history commit that follows the end of a turn,
// so the command does not close the engine (which would abandon the
// commit) before the turn is in the history. pending are the events that
// came after the stop in the same batch. It returns the commit's failure
// at once (a full disk); an interrupt (done) or commitWait ends the wait
// without one.
func awaitCommit(eng *core.Engine, sub *core.Subscription, pending []core.Event, done <-chan struct{}, id string, out *printer) error {
	settled := func(evs []core.Event) (bool, error) {
		for _, ev := range evs {
			if ev.Kind == core.EvResync && !commitComing(eng, id) {
				return true, nil // made meanwhile, or no longer this process's to make
			}
			if ev.SessionID != id || (ev.Kind != core.EvCommit && ev.Kind != core.EvNotice) {
				continue
			}
			out.event(ev)
			if ev.Kind == core.EvCommit {
				return true, nil
			}
			if strings.HasPrefix(ev.Text, commitFailedNotice) {
				return true, errors.New(ev.Text)
			}
		}
		return false, nil
	}
	if ok, err := settled(pending); ok {
		return err
	}
	t := time.NewTimer(commitWait)
	defer t.Stop()
	for {
		select {
		case _, ok := <-sub.Ready():
			if !ok {
				return nil
			}
			if ok, err := settled(sub.Drain()); ok {
				return err
			}
		case <-done:
			out.notice(id, "interrupted: not waiting for the turn's history commit")
			return nil
		case <-t.C:
			out.notice(id, "the turn's history commit is late; it is made when the session next runs")
			return nil
		}
	}
}

// commitFailed fails a follow that would have succeeded when the history
// commit of the session's last turn failed: the turn's work is in the
// workspace, but not in its history. A stop that is already a failure
// keeps its own error (the commit's was printed as a notice).
func commitFailed(stop, commitErr error, last sessions.Session) error {
	if stop != nil || commitErr == nil {
		return stop
	}
	return withCode(ExitFailed, fmt.Errorf("session %s is %s, but its turn's %w", last.ID, statusText(last), commitErr))
}
