package workflow

import (
	"fmt"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/workflow/runs"
)

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
