package trigger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/files"
)

// Workflows starts workflow runs for the triggers that name a workflow.
// The workflow engine provides it; with none, such a trigger is refused
// when the Runner is made.
type Workflows interface {
	// Start starts the workflow called name with input (JSON) and returns
	// its run's id. The run's own idempotency key (an input field) keeps a
	// repeated start from running twice: a trigger's input can carry the
	// firing's id ({{ .firing.id }}) for that.
	Start(ctx context.Context, name string, input json.RawMessage) (runID string, err error)
}

// DefaultDebounce is how long the workspace must stay still after a
// matching change before an on_change trigger fires with the batch.
const DefaultDebounce = 500 * time.Millisecond

// Options tune a Runner; the zero value gives the defaults.
type Options struct {
	// Workflows starts the workflows of workflow triggers; nil refuses
	// them.
	Workflows Workflows
	// Debounce is on_change's quiet time; 0 means DefaultDebounce.
	Debounce time.Duration
	// Logf receives the runner's log lines (the host's log); nil drops
	// them. Firings also go to the engine's notices.
	Logf func(format string, args ...any)
}

// ErrNoWorkflows is the refusal of a workflow trigger when nothing runs
// workflows.
var ErrNoWorkflows = errors.New("this engine host runs no workflows")

// Runner runs one workspace's triggers on its engine. Start it once the
// engine is open; Stop it before the engine closes.
type Runner struct {
	e        *core.Engine
	triggers []config.Trigger
	opts     Options

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sub    *core.Subscription
	watch  *files.Watcher

	mu   sync.Mutex // guards what follows: firings run on several goroutines
	rec  *record
	done map[string]string          // firing id → its last state
	own  map[string]map[string]bool // trigger → the sessions it started
}

// New makes the runner of triggers on engine e. A trigger it cannot run
// (a workflow with no Workflows) is refused here, with the file and line
// that wrote it.
func New(e *core.Engine, triggers []config.Trigger, opts Options) (*Runner, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	var errs []error
	for _, t := range triggers {
		if t.Workflow != "" && opts.Workflows == nil {
			errs = append(errs, fmt.Errorf("%s:%d: trigger %q starts workflow %q: %w", t.File, t.Line, t.Name, t.Workflow, ErrNoWorkflows))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Runner{e: e, triggers: triggers, opts: opts, done: map[string]string{}, own: map[string]map[string]bool{}}, nil
}

// KeepAlive says which triggers need the host to stay up (schedules and
// change watchers), as "nightly (schedule "@every 30m")"; nil when none
// does.
func KeepAlive(triggers []config.Trigger) []string {
	var out []string
	for _, t := range triggers {
		if t.KeepsAlive() {
			out = append(out, t.Name+" ("+t.Condition()+")")
		}
	}
	return out
}

// Start opens the record, finishes the firings a dead host left, reports
// the schedules missed while no host ran and starts listening. It does
// nothing without triggers.
func (r *Runner) Start() error {
	if len(r.triggers) == 0 {
		return nil
	}
	if r.e.StateNotice() != "" {
		r.opts.Logf("triggers: the workspace's state is read-only: no trigger runs")
		return nil
	}
	rec, lines, err := openRecord(r.e.Workspace())
	if err != nil {
		return err
	}
	r.rec = rec
	for _, f := range lines {
		if f.ID != "" {
			r.done[f.ID] = f.State
		}
		if f.Session != "" {
			r.ownedLocked(f.Trigger)[f.Session] = true
		}
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.finishPending(lines)
	var events, changes []config.Trigger
	for _, t := range r.triggers {
		switch {
		case t.OnEvent != "":
			events = append(events, t)
		case t.OnChange != "":
			changes = append(changes, t)
		case t.Schedule != "":
			next := r.armSchedule(t, lines)
			r.wg.Add(1)
			go r.runSchedule(t, next)
		}
	}
	if len(events) > 0 {
		_, r.sub = r.e.Subscribe()
		r.wg.Add(1)
		go r.runEvents(events)
	}
	if len(changes) > 0 {
		w, err := files.NewWatcher(r.e.Files(), files.WatcherOptions{})
		if err != nil {
			return errors.Join(fmt.Errorf("triggers: watch the workspace: %w", err), r.Stop())
		}
		r.watch = w
		r.wg.Add(1)
		go r.runChanges(changes)
	}
	r.opts.Logf("triggers: %d armed (%s)", len(r.triggers), names(r.triggers))
	return nil
}

// Stop stops listening and waits for a firing in flight; call it before
// the engine closes.
func (r *Runner) Stop() error {
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	if r.sub != nil {
		r.sub.Close()
	}
	var errs []error
	if r.watch != nil {
		errs = append(errs, r.watch.Close())
	}
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rec != nil {
		errs = append(errs, r.rec.close())
		r.rec = nil
	}
	return errors.Join(errs...)
}

func names(ts []config.Trigger) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return strings.Join(out, ", ")
}

// ownedLocked returns the set of sessions trigger name started.
func (r *Runner) ownedLocked(name string) map[string]bool {
	s, ok := r.own[name]
	if !ok {
		s = map[string]bool{}
		r.own[name] = s
	}
	return s
}

// owns reports whether trigger name started session id.
func (r *Runner) owns(name, id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.own[name][id]
}

// runEvents fires the event triggers on each event the engine publishes.
func (r *Runner) runEvents(ts []config.Trigger) {
	defer r.wg.Done()
	for {
		select {
		case <-r.ctx.Done():
			return
		case _, ok := <-r.sub.Ready():
			if !ok {
				return
			}
		}
		for _, ev := range r.sub.Drain() {
			if ev.Kind == core.EvResync {
				r.say("", "triggers fell behind the engine's events: an event fired meanwhile may not have fired its triggers")
				continue
			}
			if ev.Kind != core.EvSignal || ev.Signal == nil {
				continue
			}
			for _, t := range ts {
				if t.OnEvent == ev.Signal.Name {
					r.fire(t, firingOf(t, *ev.Signal))
				}
			}
		}
	}
}

// say publishes a notice (the activity, the run log) and logs it.
func (r *Runner) say(session, text string) {
	r.e.Notice(session, text)
	r.opts.Logf("%s", text)
}
