package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// runAsk gives the session an ask step's prompt, keyed, and waits for the
// end of its turn, answering approvals and questions as the run's approve
// mode says.
func (r *Runner) runAsk(run *runs.Run, st Step, text string, res *runs.StepResult) (stepOutcome, string) {
	key := stepKey(st.Key)
	_, sub := r.eng.Subscribe()
	defer sub.Close()
	if _, err := r.caller.Prompt(run.Session, core.Prompt{Text: text, Key: key, Output: st.Output}); err != nil {
		if r.stopping(sub, err) {
			return stepStopped, ""
		}
		res.Error = err.Error()
		return stepFailed, ""
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		rec, err := r.eng.Session(run.Session)
		if r.stopping(sub, err) {
			return stepStopped, ""
		}
		if err != nil {
			res.Error = err.Error()
			return stepBroken, ""
		}
		if rec.Status == sessions.Created {
			if err := r.caller.Start(run.Session); err != nil {
				var te *core.TransitionError
				if !errors.As(err, &te) {
					res.Error = err.Error()
					return stepFailed, ""
				}
			}
		}
		k, ok, err := r.eng.KeyResult(run.Session, key)
		if r.stopping(sub, err) {
			return stepStopped, ""
		}
		if err != nil {
			res.Error = err.Error()
			return stepBroken, ""
		}
		if ok {
			switch k.State {
			case sessions.KeyDone:
				return askResult(st, k, res)
			case sessions.KeyUncertain:
				res.Error = fmt.Sprintf("the turn of step %q is uncertain: the agent may have acted; not asking again", st.Key)
				return stepUncertain, ""
			}
		}
		if rec.Status == sessions.Ended {
			if r.stopping(sub, nil) {
				return stepStopped, ""
			}
			res.Error = fmt.Sprintf("the session ended (%s) before step %q's turn did", rec.EndReason, st.Key)
			return stepFailed, ""
		}
		if why, ok := r.answerOpen(run); !ok {
			return stepSuspended, why
		}
		select {
		case <-r.ctx.Done():
			return stepStopped, ""
		case _, ok := <-sub.Ready():
			if !ok {
				return stepStopped, ""
			}
			sub.Drain()
		case <-tick.C:
			// The stream says when to look; this is only a safety net.
		}
	}
}

// askResult reads the result of an ask step's turn.
func askResult(st Step, k sessions.KeyRecord, res *runs.StepResult) (stepOutcome, string) {
	var pr core.PromptResult
	if err := json.Unmarshal(k.Result, &pr); err != nil {
		res.Error = fmt.Sprintf("step %q: its recorded result is unreadable: %v", st.Key, err)
		return stepBroken, ""
	}
	res.Text = pr.Text
	switch {
	case pr.Outcome != "" && pr.Outcome != "complete":
		res.Error = fmt.Sprintf("step %q: the turn ended %s", st.Key, pr.Outcome)
		if pr.Error != "" {
			res.Error += ": " + pr.Error
		}
		return stepFailed, ""
	case pr.WaitReason == sessions.WaitQuestion:
		res.Status = "waiting"
		return stepSuspended, "the agent ended its turn with a question: answer it with `atelier sessions send`, then resume the run"
	case len(st.Output) > 0:
		if pr.Output == nil || !pr.Output.Valid {
			var errs []string
			if pr.Output != nil {
				errs = pr.Output.Errors
			}
			res.Error = fmt.Sprintf("step %q: the answer does not match its output schema: %s", st.Key, strings.Join(errs, "; "))
			return stepOutput, strings.Join(errs, "\n")
		}
		res.Output = pr.Output.Value
	}
	return stepDone, ""
}

// answerOpen answers the session's open approvals and questions as the
// run's approve mode allows; false (with what waits) when one needs a
// person.
func (r *Runner) answerOpen(run *runs.Run) (string, bool) {
	for _, it := range r.eng.Snapshot().Interactions {
		if it.SessionID != run.Session || it.Resolved {
			continue
		}
		var a core.Answer
		switch it.Kind {
		case sessions.Park:
			continue // a timer or an event: it comes by itself
		case sessions.Approval:
			switch {
			case run.Approve == "deny":
				a = core.Answer{Decision: sessions.Deny, Message: "denied by the workflow's --approve deny"}
			case run.Approve == "auto" && !it.Protected:
				a = core.Answer{Decision: sessions.AllowOnce}
			default:
				return fmt.Sprintf("approval %s in session %s: %s %s", it.ID, run.Session, it.Tool, firstOf(it.Command, it.Path)), false
			}
		case sessions.Question:
			if run.Approve == "ask" || it.Default == "" {
				return fmt.Sprintf("question %s in session %s: %s", it.ID, run.Session, it.Text), false
			}
			a = core.Answer{Text: it.Default}
		default:
			continue
		}
		a.By = "workflow"
		if err := r.caller.Answer(run.Session, it.ID, a); err != nil && !errors.Is(err, core.ErrUnknownInteraction) {
			return fmt.Sprintf("%s %s in session %s could not be answered: %v", it.Kind, it.ID, run.Session, err), false
		}
	}
	return "", true
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
