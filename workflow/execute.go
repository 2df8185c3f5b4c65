package workflow

import (
	"errors"
	"fmt"
	"strings"

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
		rec, err := r.createSession(run, w)
		if errors.Is(err, core.ErrClosed) {
			return
		}
		if err != nil {
			r.finish(run, &runs.Failure{Kind: runs.FailUnusable, Message: "create the run's session: " + err.Error()})
			return
		}
		run.Session, run.Instance = rec.ID, rec.Instance
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
		r.tell(run, progress(run, st))
		res, how, detail := r.runStep(run, st)
		switch how {
		case stepStopped:
			return
		case stepSuspended:
			run.Status, run.Waiting = runs.Suspended, detail
			if err := r.save(run); err != nil {
				r.finish(run, &runs.Failure{Kind: runs.FailUnusable, Step: st.Key, Message: err.Error()})
				return
			}
			r.tell(run, "suspended at step "+st.Key+": "+firstOf(detail, "it waits on a person"))
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
	if f != nil {
		r.tell(run, "failed at step "+firstOf(f.Step, "(none)")+": "+f.Message)
	} else {
		r.tell(run, "completed")
	}
}

// tell says where a run is, once its record says so, on the engine's
// live view: the activity shows it, and a view of the runs (the studio's
// sessions list) reads the record again when it sees it.
func (r *Runner) tell(run *runs.Run, text string) {
	r.eng.Notice(run.Session, fmt.Sprintf("workflow %s (%s): %s", run.Workflow, run.Key, text))
}

// progress words a step starting, with how the step before it ended.
func progress(run *runs.Run, st Step) string {
	text := "step " + st.Key + " (" + st.Kind() + ")"
	if n := len(run.Steps); n > 0 {
		prev := run.Steps[n-1]
		text = prev.Key + " " + prev.Status
		if prev.ExitCode != nil {
			text += fmt.Sprintf(" (exit %d)", *prev.ExitCode)
		}
		return text + " → step " + st.Key + " (" + st.Kind() + ")"
	}
	return text
}

// createSession makes the run's session: continuous, not started (its
// first ask starts it), keyed by run and attempt so a crash between the
// create and the record finds it again. With isolation copy or worktree
// the first attempt's session gets an instance of its own; a retry's
// joins it, so the steps done before are there.
func (r *Runner) createSession(run *runs.Run, w *Workflow) (sessions.Session, error) {
	approval := ""
	if run.Approve == "auto" {
		approval = core.PolicyAuto
	}
	o := core.CreateOptions{Agent: w.Agent, Title: fmt.Sprintf("workflow %s: %s", w.Name, run.Key),
		Mode: sessions.Continuous, Access: sessions.Access(w.Access), Execution: w.Execution, Image: w.Image,
		Approval: approval, Key: runs.SessionKey(run.ID, run.Attempt)}
	// The workflow's isolation (in-place when the file names none) is
	// always given, so its agent's default isolation never changes where
	// a workflow's steps run.
	if run.Instance != "" {
		o.Instance = run.Instance
	} else {
		o.Isolation = w.Isolation
	}
	return r.eng.Create(o)
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
