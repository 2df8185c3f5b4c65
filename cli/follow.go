package cli

import (
	"fmt"
	"time"

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
	// output, when set, is the structured answer the command waits for
	// (--output): printed at the stop, and exit 5 when it does not match.
	output *outputWatch
}

// cancelGrace is how long a follower waits for the session to end after
// it asked to cancel it.
const cancelGrace = 10 * time.Second

// canceller cancels the followed session once, and says how long the
// follower still waits for the end.
type canceller struct {
	id    string
	out   *printer
	asked bool
	err   error            // the cancel's own failure
	grace <-chan time.Time // fires cancelGrace after the cancel
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
