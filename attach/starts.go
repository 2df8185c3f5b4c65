package attach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/trigger/state"
	"github.com/atelier-studio/atelier/workflow"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// What the studio starts beside a session: a workflow's run and a named
// event. In process they go to the host's own runner and engine; attached,
// to the routes `atelier workflow run` and `atelier events fire` use.

// ErrWorkflowsOff says the engine's host runs no workflows (a host of
// this process given no runner, or a host answering workflows_off).
var ErrWorkflowsOff = errors.New("this host runs no workflows")

// Fired is what firing a named event did.
type Fired struct {
	// Woken is how many parked sessions it woke.
	Woken int
	// Triggers are the names of the host's triggers listening for it:
	// each fires once for it, starting its session or run.
	Triggers []string
}

// listening names the triggers of ts that fire on event name.
func listening(ts []state.Trigger, name string) []string {
	out := []string{}
	for _, t := range ts {
		if t.Event == name {
			out = append(out, t.Name)
		}
	}
	return out
}

// checkEvent refuses what no host would fire, before anything fires: a
// name outside the rule, data that is not JSON.
func checkEvent(name string, data json.RawMessage) error {
	if !config.ValidEventName(name) {
		return fmt.Errorf("%w: %s", ErrBadRequest, config.EventNameRule)
	}
	if len(data) > 0 && !json.Valid(data) {
		return fmt.Errorf("%w: the event's data is not JSON (a string is written \"in quotes\")", ErrBadRequest)
	}
	return nil
}

// eventData is the data as the engine keeps it: "" for none.
func eventData(data json.RawMessage) string {
	if len(data) == 0 || string(data) == "null" {
		return ""
	}
	return string(data)
}

// workflows is the runner of this process's host, or ErrWorkflowsOff.
func (l local) workflows() (*workflow.Runner, error) {
	if l.wf == nil {
		return nil, ErrWorkflowsOff
	}
	return l.wf, nil
}

// Workflows lists the runner's workflows.
func (l local) Workflows(context.Context) ([]runs.Source, error) {
	wf, err := l.workflows()
	if err != nil {
		return nil, err
	}
	all, err := wf.Workflows()
	if all == nil && err == nil {
		all = []runs.Source{}
	}
	return all, err
}

// RunWorkflow starts a run on the runner, as POST /v1/workflows/{name}/runs.
func (l local) RunWorkflow(_ context.Context, name string, input json.RawMessage) (runs.Run, error) {
	wf, err := l.workflows()
	if err != nil {
		return runs.Run{}, err
	}
	run, err := wf.Start(workflow.StartRequest{Workflow: name, Input: orEmpty(input), Approve: "ask"})
	if err != nil {
		return runs.Run{}, err
	}
	return *run, nil
}

// FireEvent fires the event on the engine; the host's trigger runner
// fires its listening triggers from the engine's event.
func (l local) FireEvent(ctx context.Context, name string, data json.RawMessage) (Fired, error) {
	if err := checkEvent(name, data); err != nil {
		return Fired{}, err
	}
	ts, err := l.Triggers(ctx)
	if err != nil {
		return Fired{}, err
	}
	return Fired{Woken: l.Engine.FireEvent(name, eventData(data)), Triggers: listening(ts, name)}, nil
}

// orEmpty is the input a run is given: {} for none.
func orEmpty(input json.RawMessage) json.RawMessage {
	if len(input) == 0 {
		return json.RawMessage(`{}`)
	}
	return input
}

// Workflows asks the host for its workflows.
func (r *Remote) Workflows(ctx context.Context) ([]runs.Source, error) {
	all, err := r.opts.Client.Workflows(ctx)
	return all, Err(err)
}

// RunWorkflow asks the host to start a run.
func (r *Remote) RunWorkflow(ctx context.Context, name string, input json.RawMessage) (runs.Run, error) {
	run, err := r.opts.Client.StartWorkflow(ctx, name, client.WorkflowRunRequest{Input: orEmpty(input), Approve: "ask"})
	return run, Err(err)
}

// FireEvent asks the host to fire the event. The host's triggers are read
// first: a failed read fires nothing.
func (r *Remote) FireEvent(ctx context.Context, name string, data json.RawMessage) (Fired, error) {
	if err := checkEvent(name, data); err != nil {
		return Fired{}, err
	}
	ts, err := r.Triggers(ctx)
	if err != nil {
		return Fired{}, err
	}
	n, err := r.opts.Client.Signal(ctx, name, data)
	if err != nil {
		return Fired{}, Err(err)
	}
	return Fired{Woken: n, Triggers: listening(ts, name)}, nil
}
