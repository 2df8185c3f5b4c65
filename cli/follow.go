package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
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
func follow(ctx context.Context, eng *core.Engine, sub *core.Subscription, id string, open []sessions.Interaction,
	o followOptions, out *printer, s *streams) error {
	r := &runner{eng: eng, id: id, mode: o.approve, out: out, s: s}
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
	cancelled := false
	cancel := func(why string) {
		if cancelled {
			return
		}
		cancelled = true
		out.notice(id, why)
		if _, err := eng.Cancel(id); err != nil {
			out.notice(id, "cancel failed: "+err.Error())
		}
	}
	for {
		select {
		case _, ok := <-sub.Ready():
			if !ok {
				return withCode(ExitFailed, errors.New("the engine closed while following the session"))
			}
			for _, ev := range sub.Drain() {
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
				if code, stop := r.handle(ev); stop {
					if ev.Kind == core.EvSession && commitComing(eng, id) {
						awaitCommit(sub, id, out)
					}
					return stopped(exitFor(code, r.last))
				}
			}
		case <-done:
			if !o.cancelOnInterrupt {
				return withCode(ExitNeedsYou, fmt.Errorf("stopped following session %s (%s); it goes on where a studio or a --wait command runs it", id, needs(r.last)))
			}
			done = nil
			cancel("interrupted: cancelling")
		case <-timeout:
			cancel(fmt.Sprintf("timeout after %s: cancelling", o.timeout))
		}
	}
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
// commit) before the turn is in the history.
func awaitCommit(sub *core.Subscription, id string, out *printer) {
	t := time.NewTimer(commitWait)
	defer t.Stop()
	for {
		select {
		case _, ok := <-sub.Ready():
			if !ok {
				return
			}
			for _, ev := range sub.Drain() {
				if ev.SessionID != id {
					continue
				}
				if ev.Kind == core.EvCommit || ev.Kind == core.EvNotice {
					out.event(ev)
				}
				if ev.Kind == core.EvCommit {
					return
				}
			}
		case <-t.C:
			out.notice(id, "the turn's history commit is late; it is made when the session next runs")
			return
		}
	}
}
