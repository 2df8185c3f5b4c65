package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// waitFlags are the flags of the commands that may stay with a session
// (create, start, resume, send).
type waitFlags struct {
	wait    bool
	json    bool
	approve string
	timeout time.Duration
}

func (w *waitFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&w.wait, "wait", false, "stay and run the session to its next stop; exit with the codes of `atelier run`")
	f.StringVar(&w.approve, "approve", "ask", "with --wait, who answers approvals: ask, auto or deny")
	f.BoolVar(&w.json, "json", false, "with --wait, print one JSON object per event line")
	f.DurationVar(&w.timeout, "timeout", 0, "with --wait, cancel the session after this long (0: no limit)")
	registerEnumCompletions(cmd, map[string][]string{"approve": approveModes})
}

func (w *waitFlags) check() error {
	if !w.wait && (w.json || w.approve != "ask" || w.timeout != 0) {
		return usageErr("--json, --approve and --timeout go with --wait")
	}
	if w.timeout < 0 {
		return usageErr("--timeout must not be negative")
	}
	return checkApprove(w.approve)
}

// control applies one control to a session and stays with it (--wait):
// the workspace's host runs the session, the command acts through its API
// and follows its event stream to the next stop (remote_wait.go). do
// returns the receipt line to print.
func (s *streams) control(ctx context.Context, workspace, idArg string, w *waitFlags,
	do func(t *target) (string, error)) (err error) {
	if err := w.check(); err != nil {
		return err
	}
	h, err := s.openHostWait(ctx, workspace, idArg)
	if err != nil {
		return err
	}
	defer func() { err = joinStop(err, h.close()) }()
	return s.remoteControl(ctx, h, w, do)
}

// openOf lists the interactions of a snapshot still open in one session:
// a follower that starts from the snapshot answers them first.
func openOf(snap core.Snapshot, id string) []sessions.Interaction {
	var open []sessions.Interaction
	for _, it := range snap.Interactions {
		if it.SessionID == id {
			open = append(open, it.Interaction)
		}
	}
	return open
}

// endedBefore reports the session of a --wait command that had ended
// before the command began: it says so, with the end's reason, and the
// command exits at once with the code of that end (0 completed, 1 failed,
// 3 cancelled). With --json an ended event (replayed) says it first.
func endedBefore(rec sessions.Session, out *printer, atStop func(error) error) error {
	code, _ := stopCode(rec)
	why := string(rec.EndReason)
	if rec.Error != "" {
		why += ": " + rec.Error
	}
	msg := fmt.Sprintf("session %s has already ended (%s); there is nothing to run", rec.ID, why)
	if out.json {
		out.emit(JSONEvent{Type: "ended", SessionID: rec.ID, Status: rec.Status, Reason: string(rec.EndReason),
			Error: rec.Error, Session: &rec, Replayed: true})
	}
	var err error
	if code == ExitOK {
		out.notice(rec.ID, msg)
	} else {
		err = withCode(code, errors.New(msg))
	}
	if atStop != nil {
		return atStop(err)
	}
	return err
}

// receipt is the line a control prints: what was asked and when it takes
// effect.
func receipt(verb, id string, rc core.Receipt) string {
	return fmt.Sprintf("%s %s: %s", verb, id, rc.When)
}
