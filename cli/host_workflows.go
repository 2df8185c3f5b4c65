package cli

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/atelier-studio/atelier/workflow"
)

// hostWorkflows hands a host's workflow runner to its triggers. The host
// starts its companion (the triggers) as soon as the engine opens and
// builds the API handler, which makes the runner, a moment later; a
// trigger that fires in between (a firing a crash left unstarted) waits
// here for the runner rather than finding none.
type hostWorkflows struct {
	once  sync.Once
	ready chan struct{}
	r     *workflow.Runner
}

func newHostWorkflows() *hostWorkflows {
	return &hostWorkflows{ready: make(chan struct{})}
}

// set records the host's runner; only the first counts. A nil h (a host
// without triggers) takes nothing.
func (h *hostWorkflows) set(r *workflow.Runner) {
	if h == nil {
		return
	}
	h.once.Do(func() {
		h.r = r
		close(h.ready)
	})
}

// runner is the host's runner once its handler is built, nil before (and
// for a host whose handler made none).
func (h *hostWorkflows) runner() *workflow.Runner {
	select {
	case <-h.ready:
		return h.r
	default:
		return nil
	}
}

// Start implements trigger.Workflows: a triggered run is headless, so an
// approval or a question suspends it (approve "ask") for the operator to
// answer and resume (`atelier workflow resume RUN`), as a run started
// from the command line without a terminal is.
func (h *hostWorkflows) Start(ctx context.Context, name string, input json.RawMessage) (string, error) {
	select {
	case <-h.ready:
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
	run, err := h.r.Start(workflow.StartRequest{Workflow: name, Input: input, Approve: "ask"})
	if err != nil {
		return "", err
	}
	return run.ID, nil
}
