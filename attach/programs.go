package attach

import (
	"context"
	"errors"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/trigger"
	"github.com/atelier-studio/atelier/trigger/state"
	"github.com/atelier-studio/atelier/workflow"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// What runs beside the engine on its host, read for the studio: the
// workflow runs (their records in .state/workflows/) and the triggers
// (the host's configuration and .state/triggers.jsonl). Both are only
// read here: the host's runners are the one writer of each record.

// WorkflowRuns reads the runs' records in this process: the host of this
// process writes them whole (atomically), so a read sees each as it was
// before or after a write.
func (l local) WorkflowRuns(context.Context) ([]runs.Run, error) {
	all, err := workflow.ReadRuns(l.Workspace())
	if err != nil {
		return nil, err
	}
	out := make([]runs.Run, 0, len(all))
	for _, r := range all {
		out = append(out, *r)
	}
	return out, nil
}

// Triggers lists the triggers this process's host runs (LocalOptions
// Triggers), as GET /v1/triggers does.
func (l local) Triggers(context.Context) ([]state.Trigger, error) {
	return trigger.List(l.Workspace(), l.triggers, time.Now())
}

// WorkflowRuns asks the host for the runs; a host that runs no workflows
// has none.
func (r *Remote) WorkflowRuns(ctx context.Context) ([]runs.Run, error) {
	all, err := r.opts.Client.WorkflowRuns(ctx)
	var p *client.Problem
	if errors.As(err, &p) && p.Code == client.CodeWorkflowsOff {
		return []runs.Run{}, nil
	}
	return all, Err(err)
}

// Triggers asks the host for its triggers.
func (r *Remote) Triggers(ctx context.Context) ([]state.Trigger, error) {
	all, err := r.opts.Client.Triggers(ctx)
	return all, Err(err)
}
