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

// stepOutcome is how a step went.
type stepOutcome int

const (
	stepDone      stepOutcome = iota
	stepFailed                // the step failed (on_failure decides)
	stepOutput                // its answer did not match its schema
	stepUncertain             // it may have run; not run again
	stepSuspended             // it waits on a person
	stepStopped               // the runner stopped: the run stays running
	stepBroken                // it could not run at all (a template, the session)
)

// stepKey is the idempotency key of a step in its run's session.
func stepKey(k string) string { return "wf/" + k }

// execute runs the run's remaining steps, then closes its session. It
// returns when the run completed, failed, was suspended, or the runner
// stopped.
func (r *Runner) execute(run *runs.Run, w *Workflow) {
	if run.Session == "" {
		id, err := r.createSession(run, w)
		if errors.Is(err, core.ErrClosed) {
			return
		}
		if err != nil {
			r.finish(run, &runs.Failure{Kind: runs.FailUnusable, Message: "create the run's session: " + err.Error()})
			return
		}
		run.Session = id
		if err := r.save(run); err != nil {
			r.finish(run, &runs.Failure{Kind: runs.FailUnusable, Message: err.Error()})
			return
		}
	}
	for _, st := range w.Steps {
		if has(run, st.Key) {
			continue
		}
		run.Current = st.Key
		if err := r.save(run); err != nil {
			r.finish(run, &runs.Failure{Kind: runs.FailUnusable, Step: st.Key, Message: err.Error()})
			return
		}
		res, how, detail := r.runStep(run, st)
		switch how {
		case stepStopped:
			return
		case stepSuspended:
			run.Status, run.Waiting = runs.Suspended, detail
			if err := r.save(run); err != nil {
				r.finish(run, &runs.Failure{Kind: runs.FailUnusable, Step: st.Key, Message: err.Error()})
			}
			return
		case stepDone:
			run.Steps = append(run.Steps, res)
		case stepFailed:
			if st.OnFailure == "continue" {
				res.Continued = true
				run.Steps = append(run.Steps, res)
				break
			}
			run.Steps = append(run.Steps, res)
			r.finish(run, &runs.Failure{Kind: runs.FailStep, Step: st.Key, Message: res.Error})
			return
		default:
			run.Steps = append(run.Steps, res)
			kind := map[stepOutcome]string{stepOutput: runs.FailOutput, stepUncertain: runs.FailUncertain, stepBroken: runs.FailUnusable}[how]
			f := &runs.Failure{Kind: kind, Step: st.Key, Message: res.Error}
			if how == stepOutput {
				f.Errors = strings.Split(detail, "\n")
			}
			r.finish(run, f)
			return
		}
		if err := r.save(run); err != nil {
			r.finish(run, &runs.Failure{Kind: runs.FailUnusable, Step: st.Key, Message: err.Error()})
			return
		}
	}
	if n := len(run.Steps); n > 0 {
		run.Result = stepResult(run.Steps[n-1])
	}
	r.finish(run, nil)
}

// has reports whether step k has a result in the run (done, or failed and
// continued past).
func has(run *runs.Run, k string) bool {
	for _, s := range run.Steps {
		if s.Key == k {
			return true
		}
	}
	return false
}

// finish ends the run, completed (f nil) or failed, and closes its
// session; a close that fails is recorded beside the outcome.
func (r *Runner) finish(run *runs.Run, f *runs.Failure) {
	run.Current, run.Waiting = "", ""
	run.Status = runs.Completed
	if f != nil {
		run.Status, run.Failure = runs.Failed, f
	}
	if run.Session != "" {
		if err := r.closeSession(run.Session); err != nil {
			run.CloseError = err.Error()
		}
	}
	if err := r.save(run); err != nil && run.Failure != nil {
		// Nothing else can hold it: the next resume finds the run as its
		// last record says, running, and its keys replay.
		run.Failure.Message += "; and the run's record could not be written: " + err.Error()
	}
}

// createSession makes the run's session: continuous, not started (its
// first ask starts it), keyed by run and attempt so a crash between the
// create and the record finds it again.
func (r *Runner) createSession(run *runs.Run, w *Workflow) (string, error) {
	approval := ""
	if run.Approve == "auto" {
		approval = core.PolicyAuto
	}
	rec, err := r.eng.Create(core.CreateOptions{Agent: w.Agent, Title: fmt.Sprintf("workflow %s: %s", w.Name, run.Key),
		Mode: sessions.Continuous, Access: sessions.Access(w.Access), Execution: w.Execution, Image: w.Image,
		Approval: approval, Key: fmt.Sprintf("workflow/%s/%d", run.ID, run.Attempt)})
	if err != nil {
		return "", err
	}
	return rec.ID, nil
}

// closeSession ends the run's session: a close between turns, a cancel
// when a turn is in flight, nothing when it already ended.
func (r *Runner) closeSession(id string) error {
	rec, err := r.eng.Session(id)
	if err != nil {
		return fmt.Errorf("close session %s: %w", id, err)
	}
	switch rec.Status {
	case sessions.Ended:
		return nil
	case sessions.Created, sessions.Waiting:
		_, err = r.caller.CloseSession(id)
	default:
		_, err = r.caller.Cancel(id)
	}
	if err != nil {
		return fmt.Errorf("close session %s: %w", id, err)
	}
	return nil
}

// runStep runs one step; detail is what a suspended step waits for, or
// an output's validation errors.
func (r *Runner) runStep(run *runs.Run, st Step) (runs.StepResult, stepOutcome, string) {
	res := runs.StepResult{Key: st.Key, Kind: st.Kind(), Attempt: run.Attempt, Started: r.now().UTC()}
	defer func() { res.Ended = r.now().UTC() }()
	data, err := templateData(run.Input, run.Steps)
	if err == nil {
		var text string
		if text, err = st.render(data); err == nil {
			var how stepOutcome
			var detail string
			if st.Kind() == "exec" {
				how = r.runExec(run, st, text, &res)
			} else {
				how, detail = r.runAsk(run, st, text, &res)
			}
			res.Ended = r.now().UTC()
			if res.Status == "" {
				res.Status = map[stepOutcome]string{stepDone: "done", stepUncertain: "uncertain"}[how]
				if res.Status == "" {
					res.Status = "failed"
				}
			}
			return res, how, detail
		}
	}
	res.Status, res.Error = "failed", err.Error()
	return res, stepBroken, ""
}

// runExec runs an exec step's command in the session, keyed: a repeat
// after a crash replays the recorded result, and a command whose result
// was never recorded is uncertain, not run again.
func (r *Runner) runExec(run *runs.Run, st Step, cmd string, res *runs.StepResult) stepOutcome {
	key := stepKey(st.Key)
	if k, ok, err := r.eng.KeyResult(run.Session, key); err != nil {
		res.Error = err.Error()
		return stepBroken
	} else if ok && k.State != sessions.KeyDone {
		res.Error = fmt.Sprintf("the command of step %q is %s: it may have run (the host stopped before its result was recorded); "+
			"not running it again: check what it did, then retry the run", st.Key, k.State)
		return stepUncertain
	}
	_, sub := r.eng.Subscribe()
	defer sub.Close()
	out, err := r.eng.Exec(r.ctx, run.Session, core.ExecCommand{Shell: cmd, Key: key})
	if r.stopping(sub, err) {
		// The engine closes (it closes its streams before it cancels its
		// commands): the run stays running, and the next host replays or
		// reports the step.
		return stepStopped
	}
	if err != nil {
		res.Error = err.Error()
		return stepFailed
	}
	code := out.ExitCode
	res.ExitCode, res.Stdout, res.Stderr = &code, out.Stdout, out.Stderr
	switch {
	case out.Cancelled:
		res.Error = fmt.Sprintf("the command of step %q was interrupted (its host stopped): it may have done part of its work; not running it again", st.Key)
		return stepUncertain
	case out.TimedOut:
		res.Error = fmt.Sprintf("step %q: the command timed out", st.Key)
		return stepFailed
	case code != 0:
		res.Error = fmt.Sprintf("step %q: the command exited %d", st.Key, code)
		return stepFailed
	}
	return stepDone
}

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

// stopping reports whether the engine is closing or closed (so whatever a
// step saw may be the shutdown's doing, not the step's): the runner
// stopped, err is the engine's ErrClosed, or sub, a stream opened before
// the step's call, was closed (the engine closes its streams first).
func (r *Runner) stopping(sub *core.Subscription, err error) bool {
	if r.ctx.Err() != nil || errors.Is(err, core.ErrClosed) {
		return true
	}
	for {
		select {
		case _, ok := <-sub.Ready():
			if !ok {
				return true
			}
			sub.Drain()
		default:
			return false
		}
	}
}
