package runs

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Status is where a run is.
type Status string

// The statuses of a run.
const (
	// Running: the host runs its steps (or will, when it starts again).
	Running Status = "running"
	// Suspended: a step waits on a person (an approval or a question the
	// run's --approve mode does not answer). Its session stays open;
	// `workflow resume` continues.
	Suspended Status = "suspended"
	// Completed: every step ran; the session was closed.
	Completed Status = "completed"
	// Failed: a step failed (or could not run); the session was closed.
	Failed Status = "failed"
)

// Failure kinds, which the CLI maps to exit codes.
const (
	FailStep      = "step"      // a step failed: a non-zero exit, a failed turn
	FailOutput    = "output"    // an answer did not match its output schema
	FailUncertain = "uncertain" // a keyed step may have run but its result was not recorded
	FailUnusable  = "unusable"  // a template failed, the workflow changed, the session could not be made
)

// Run is the durable record of one run of a workflow with one key value.
type Run struct {
	ID       string          `json:"id"`
	Workflow string          `json:"workflow"`
	File     string          `json:"file"`
	Digest   string          `json:"workflow_digest"`
	Key      string          `json:"key"`
	Input    json.RawMessage `json:"input"`
	// InputDigest tells the same input from another one with the same key.
	InputDigest string `json:"input_digest"`
	Approve     string `json:"approve"`
	Status      Status `json:"status"`
	Session     string `json:"session,omitempty"`
	// Instance is the instance the run's sessions work on (a workflow
	// with isolation copy or worktree): made with the first attempt's
	// session, joined by a retry's, left for review once the run ends.
	Instance string       `json:"instance,omitempty"`
	Attempt  int          `json:"attempt"`
	Steps    []StepResult `json:"steps"`
	// Plan is the workflow's steps in order (as of the run's last start),
	// so a view can show those not run yet; a record written before it
	// existed has none.
	Plan []PlannedStep `json:"plan,omitempty"`
	// Current is the step in flight (or waiting, when suspended).
	Current string `json:"current,omitempty"`
	// Waiting says what a suspended run waits for.
	Waiting string          `json:"waiting,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Failure *Failure        `json:"failure,omitempty"`
	// CloseError is the failure of the implicit close, beside (never
	// instead of) the run's own outcome.
	CloseError string `json:"close_error,omitempty"`
	// Superseded are the results of failed steps a retry ran again.
	Superseded []StepResult `json:"superseded,omitempty"`
	Created    time.Time    `json:"created"`
	Updated    time.Time    `json:"updated"`
}

// Failure is why a run failed.
type Failure struct {
	Kind    string   `json:"kind"`
	Step    string   `json:"step,omitempty"`
	Message string   `json:"message"`
	Errors  []string `json:"errors,omitempty"`
}

// Done reports whether the run is over (completed or failed).
func (r *Run) Done() bool { return r.Status == Completed || r.Status == Failed }

// StepResult is what one step did.
type StepResult struct {
	Key  string `json:"key"`
	Kind string `json:"kind"`
	// Status: done, failed (on_failure = "continue" lets the run go on),
	// uncertain.
	Status   string          `json:"status"`
	Attempt  int             `json:"attempt"`
	ExitCode *int            `json:"exit_code,omitempty"`
	Stdout   string          `json:"stdout,omitempty"`
	Stderr   string          `json:"stderr,omitempty"`
	Text     string          `json:"text,omitempty"`
	Output   json.RawMessage `json:"output,omitempty"`
	Error    string          `json:"error,omitempty"`
	// Continued: the step failed and on_failure = "continue" let the run
	// go on.
	Continued bool      `json:"continued,omitempty"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended"`
}

// Source is a workflow file found: its name, where it is, whether it is
// the workspace's, and (when listed) its description, or why it cannot be
// used.
type Source struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Workspace   bool   `json:"workspace"`
	Description string `json:"description,omitempty"`
	// Input is the JSON schema of the workflow's input, when it declares
	// one: what a client asking for the input shows.
	Input json.RawMessage `json:"input,omitempty"`
	Error string          `json:"error,omitempty"`
}

// PlannedStep is one step of the workflow a run runs.
type PlannedStep struct {
	Key  string `json:"key"`
	Kind string `json:"kind"` // exec or ask
}

// The states of a step as StepStates gives them.
const (
	StepDone      = "done"
	StepFailed    = "failed"
	StepUncertain = "uncertain"
	StepRunning   = "running" // the step in flight
	StepWaiting   = "waiting" // the step a suspended run waits in
	StepPending   = "pending" // not run yet
)

// StepState is where one step of a run is, for a view of the run.
type StepState struct {
	Key   string
	Kind  string
	State string
	// ExitCode is an exec step's exit code, once it ran.
	ExitCode *int
}

// StepStates lists the run's steps in order with their states: the plan's
// (or, in a record without one, the steps with a result and the current
// one), then any result the plan no longer names.
func (r *Run) StepStates() []StepState {
	results := map[string]StepResult{}
	for _, s := range r.Steps {
		results[s.Key] = s
	}
	plan := r.Plan
	if len(plan) == 0 {
		for _, s := range r.Steps {
			plan = append(plan, PlannedStep{Key: s.Key, Kind: s.Kind})
		}
		if r.Current != "" {
			if _, ok := results[r.Current]; !ok {
				plan = append(plan, PlannedStep{Key: r.Current})
			}
		}
	}
	var out []StepState
	seen := map[string]bool{}
	add := func(p PlannedStep) {
		seen[p.Key] = true
		st := StepState{Key: p.Key, Kind: p.Kind, State: StepPending}
		if res, ok := results[p.Key]; ok {
			st.Kind, st.ExitCode = res.Kind, res.ExitCode
			switch res.Status {
			case "done":
				st.State = StepDone
			case "uncertain":
				st.State = StepUncertain
			default:
				st.State = StepFailed
			}
		} else if p.Key == r.Current {
			st.State = StepRunning
			if r.Status == Suspended {
				st.State = StepWaiting
			}
		}
		out = append(out, st)
	}
	for _, p := range plan {
		add(p)
	}
	for _, s := range r.Steps {
		if !seen[s.Key] {
			add(PlannedStep{Key: s.Key, Kind: s.Kind})
		}
	}
	return out
}

// SessionKey is the idempotency key of the session attempt n of run id
// creates, so a crash between the create and the record finds it again.
func SessionKey(id string, n int) string { return "workflow/" + id + "/" + strconv.Itoa(n) }

// Owns reports whether a session (its id and creation key) is the run's:
// its session now, or one an earlier attempt made.
func (r *Run) Owns(id, key string) bool {
	return (r.Session != "" && r.Session == id) || strings.HasPrefix(key, "workflow/"+r.ID+"/")
}
