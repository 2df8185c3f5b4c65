package workflow

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/sessions"
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
	InputDigest string       `json:"input_digest"`
	Approve     string       `json:"approve"`
	Status      Status       `json:"status"`
	Session     string       `json:"session,omitempty"`
	Attempt     int          `json:"attempt"`
	Steps       []StepResult `json:"steps"`
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

// view is the step's result as templates see it (outputs clipped).
func (r StepResult) view() map[string]any {
	if r.Kind == "exec" {
		code := -1
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		return map[string]any{"exit_code": code, "stdout": clip(r.Stdout), "stderr": clip(r.Stderr)}
	}
	v := map[string]any{"text": clip(r.Text)}
	if len(r.Output) > 0 {
		var out any
		if json.Unmarshal(r.Output, &out) == nil {
			v["output"] = out
		}
	}
	return v
}

// result is the step's result as the run's result: an exec's exit code
// and output, an ask's structured output, or its text.
func (r StepResult) result() json.RawMessage {
	var v any
	switch {
	case r.Kind == "exec":
		code := -1
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		v = map[string]any{"exit_code": code, "stdout": r.Stdout, "stderr": r.Stderr}
	case len(r.Output) > 0:
		return r.Output
	default:
		v = map[string]any{"text": r.Text}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// RunID is the id of the run of workflow name with key value key: the same
// pair always names the same run, so a repeat finds it.
func RunID(name, key string) string {
	sum := sha256.Sum256([]byte(name + "\x00" + key))
	return name + "-" + hex.EncodeToString(sum[:6])
}

// inputDigest is the SHA-256 of the input's canonical JSON (keys sorted,
// no spaces), so the same input written twice is the same.
func inputDigest(input json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return digest(b), nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// records keeps runs in .state/workflows/, one JSON file per run, each
// write atomic (sessions.WriteFileAtomic): a crash leaves the run as it
// was before the write or after it.
type records struct {
	dir string
}

func (s records) path(id string) string { return filepath.Join(s.dir, id+".json") }

// save writes r.
func (s records) save(r *Run) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("record run %s: %w", r.ID, err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("record run %s: %w", r.ID, err)
	}
	if err := sessions.WriteFileAtomic(s.path(r.ID), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("record run %s: %w", r.ID, err)
	}
	return nil
}

// load reads run id; ErrNotFound when there is none.
func (s records) load(id string) (*Run, error) {
	if !namePattern.MatchString(id) {
		return nil, fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	b, err := os.ReadFile(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read run %s: %w", id, err)
	}
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read run %s: %w", id, err)
	}
	return &r, nil
}

// list reads every run, newest first.
func (s records) list() ([]*Run, error) {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var out []*Run
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		r, err := s.load(id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, nil
}
