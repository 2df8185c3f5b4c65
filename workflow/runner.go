package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// Runner runs workflows on one engine: the engine host's, so a step runs
// in one process only. Each run has at most one goroutine; its record in
// .state/workflows/ is written before and after every step, so a host
// killed mid-run leaves a record the next runner resumes from: the steps
// done are not run again (their results are in the record, and their
// keys in the session make a repeat a replay), an uncertain one is
// reported, not run.
//
// The runner stops with its engine: NewRunner watches the engine's event
// stream, and when the engine closes, the runs' goroutines end (their
// runs stay running, for the next host).
type Runner struct {
	eng    *core.Engine
	caller core.Caller
	finder Finder
	recs   records
	now    func() time.Time
	hold   func() func()
	// err is why the runner could not list the runs it should resume;
	// every call reports it.
	err error

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	active map[string]chan struct{} // run id → closed when its goroutine ends
	closed bool
}

// Options configure a Runner.
type Options struct {
	Finder Finder
	// Now is the clock of the records (time.Now when nil).
	Now func() time.Time
	// Hold, when set, is called while a run's goroutine runs and its
	// release when it ends: the engine host does not exit idle meanwhile.
	Hold func() (release func())
}

// StartRequest asks for a run.
type StartRequest struct {
	Workflow string          `json:"workflow"`
	Input    json.RawMessage `json:"input"`
	// Approve answers approvals and questions: ask (a person: the run is
	// suspended), auto, deny.
	Approve string `json:"approve,omitempty"`
	// Retry runs a failed run again from its failed step.
	Retry bool `json:"retry,omitempty"`
}

// Approve modes.
var approveModes = []string{"ask", "auto", "deny"}

// NewRunner returns the runner of eng and resumes the runs a previous host
// left running. A runner that cannot read its records reports that from
// every call (Err).
func NewRunner(eng *core.Engine, o Options) *Runner {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Hold == nil {
		o.Hold = func() func() { return func() {} }
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{eng: eng, caller: eng.As("workflow"), finder: o.Finder, now: o.Now, hold: o.Hold,
		recs: recordsOf(eng.Workspace()),
		ctx:  ctx, cancel: cancel, active: map[string]chan struct{}{}}
	_, sub := eng.Subscribe()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-sub.Ready():
				if !ok {
					// The engine closed: so does the runner.
					r.stop()
					return
				}
				sub.Drain()
			}
		}
	}()
	all, err := r.recs.list()
	if err != nil {
		r.err = fmt.Errorf("the workflow runner cannot read its runs: %w", err)
		return r
	}
	for _, run := range all {
		if run.Status != runs.Running {
			continue
		}
		w, err := r.finder.Load(run.Workflow)
		r.mu.Lock()
		if err != nil {
			r.failLocked(run, &runs.Failure{Kind: runs.FailUnusable, Step: run.Current, Message: "resume after a restart: " + err.Error()})
		} else {
			r.launchLocked(run, w)
		}
		r.mu.Unlock()
	}
	return r
}

// Err is why the runner cannot work (its records unreadable), or nil.
func (r *Runner) Err() error { return r.err }

// stop ends the goroutines without waiting (the engine closed).
func (r *Runner) stop() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
}

// Close stops the runner and waits for its goroutines: runs in flight stay
// running in their records, for the next runner.
func (r *Runner) Close() {
	r.stop()
	r.wg.Wait()
}

// Workflows lists the workflows that can be found (see Finder.List), each
// loaded: with its description, or why it cannot be used.
func (r *Runner) Workflows() ([]runs.Source, error) {
	all, err := r.finder.List()
	if err != nil {
		return nil, err
	}
	for i, src := range all {
		w, err := r.finder.Load(src.Name)
		if err != nil {
			all[i].Error = err.Error()
			continue
		}
		all[i].Description = w.Description
		all[i].Input = w.Input
	}
	return all, nil
}

// LoadWorkflow finds and checks one workflow.
func (r *Runner) LoadWorkflow(name string) (*Workflow, error) { return r.finder.Load(name) }

// Start starts a run, or answers the run its key already has: the record
// of a finished run (nothing runs again), the run in flight (the caller
// waits on it with Wait), a failed run retried from its failed step when
// req.Retry. The same key with another input is ErrConflict.
func (r *Runner) Start(req StartRequest) (*runs.Run, error) {
	if req.Approve == "" {
		req.Approve = "ask"
	}
	if !validApprove(req.Approve) {
		return nil, &UnusableError{Msg: fmt.Sprintf("approve must be ask, auto or deny, not %q", req.Approve)}
	}
	w, err := r.finder.Load(req.Workflow)
	if err != nil {
		return nil, err
	}
	keyVal, err := w.CheckInput(req.Input)
	if err != nil {
		return nil, err
	}
	dig, err := inputDigest(req.Input)
	if err != nil {
		return nil, &UnusableError{Msg: "the input: " + err.Error()}
	}
	id := RunID(w.Name, keyVal)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usable(); err != nil {
		return nil, err
	}
	prev, err := r.recs.load(id)
	switch {
	case errors.Is(err, ErrNotFound):
		now := r.now().UTC()
		run := &runs.Run{ID: id, Workflow: w.Name, File: w.File, Digest: w.Digest, Key: keyVal, Input: req.Input,
			InputDigest: dig, Approve: req.Approve, Status: runs.Running, Attempt: 1, Steps: []runs.StepResult{},
			Plan: w.plan(), Created: now, Updated: now}
		if err := r.recs.save(run); err != nil {
			return nil, err
		}
		r.launchLocked(run, w)
		return run, nil
	case err != nil:
		return nil, err
	}
	if prev.InputDigest != dig {
		return nil, fmt.Errorf("run %s: the key %q was run with another input: %w", prev.ID, keyVal, ErrConflict)
	}
	if _, ok := r.active[id]; ok {
		return prev, nil // in flight: attach
	}
	if prev.Status == runs.Failed && req.Retry {
		retry(prev, r.now().UTC())
		prev.Approve, prev.File, prev.Digest = req.Approve, w.File, w.Digest
		if err := r.recs.save(prev); err != nil {
			return nil, err
		}
		r.launchLocked(prev, w)
		return prev, nil
	}
	if prev.Status == runs.Running {
		// Left running by a host that stopped before this runner listed
		// it: take it up.
		r.launchLocked(prev, w)
	}
	return prev, nil
}

// Resume continues a suspended run (or a running one no goroutine runs).
// approve, when set, replaces the run's --approve mode.
func (r *Runner) Resume(id, approve string) (*runs.Run, error) {
	if approve != "" && !validApprove(approve) {
		return nil, &UnusableError{Msg: fmt.Sprintf("approve must be ask, auto or deny, not %q", approve)}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usable(); err != nil {
		return nil, err
	}
	run, err := r.recs.load(id)
	if err != nil {
		return nil, err
	}
	if _, ok := r.active[id]; ok || run.Done() {
		return run, nil
	}
	w, err := r.finder.Load(run.Workflow)
	if err != nil {
		return nil, err
	}
	if approve != "" {
		run.Approve = approve
	}
	// The run goes on with the workflow as it is now (still trusted).
	run.File, run.Digest = w.File, w.Digest
	run.Status, run.Waiting, run.Updated = runs.Running, "", r.now().UTC()
	if err := r.recs.save(run); err != nil {
		return nil, err
	}
	r.launchLocked(run, w)
	return run, nil
}

// Get returns a run's record.
func (r *Runner) Get(id string) (*runs.Run, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recs.load(id)
}

// Runs lists every run, newest first.
func (r *Runner) Runs() ([]*runs.Run, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recs.list()
}

// Wait waits until run id has no goroutine (it completed, failed, was
// suspended, or the runner stopped) or ctx ends, and returns its record.
func (r *Runner) Wait(ctx context.Context, id string) (*runs.Run, error) {
	r.mu.Lock()
	done, ok := r.active[id]
	r.mu.Unlock()
	if ok {
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return r.Get(id)
}

// retry makes a failed run running again from its failed step, in a new
// session (the failed run's was closed): the steps done stay done.
func retry(run *runs.Run, now time.Time) {
	var keep []runs.StepResult
	for _, s := range run.Steps {
		if s.Status == "done" || (s.Status == "failed" && s.Continued) {
			keep = append(keep, s)
		} else {
			run.Superseded = append(run.Superseded, s)
		}
	}
	run.Steps = keep
	run.Status, run.Session, run.Failure, run.CloseError, run.Result = runs.Running, "", nil, "", nil
	run.Attempt++
	run.Updated = now
}

func validApprove(m string) bool {
	for _, a := range approveModes {
		if a == m {
			return true
		}
	}
	return false
}

// usable refuses a call to a stopped or broken runner.
func (r *Runner) usable() error {
	if r.closed {
		return ErrClosed
	}
	return r.err
}

// launchLocked starts run's goroutine.
func (r *Runner) launchLocked(run *runs.Run, w *Workflow) {
	run.Plan = w.plan()
	release := r.hold()
	done := make(chan struct{})
	r.active[run.ID] = done
	cp := *run
	cp.Steps = append([]runs.StepResult(nil), run.Steps...)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			delete(r.active, cp.ID)
			r.mu.Unlock()
			close(done)
			release()
		}()
		r.execute(&cp, w)
	}()
}

// save records the run, stamping its time.
func (r *Runner) save(run *runs.Run) error {
	run.Updated = r.now().UTC()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recs.save(run)
}

// failLocked records a run failed without a goroutine (it could not be
// resumed).
func (r *Runner) failLocked(run *runs.Run, f *runs.Failure) {
	run.Status, run.Failure, run.Updated = runs.Failed, f, r.now().UTC()
	if run.Session != "" {
		if err := r.closeSession(run.Session); err != nil {
			run.CloseError = err.Error()
		}
	}
	if err := r.recs.save(run); err != nil {
		run.Failure.Message += "; and its record could not be written: " + err.Error()
	}
}
