package core

import (
	"context"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// retrying is a Model whose stream fails after its first tokens and is
// retried: it rewinds what it streamed, then streams again.
type retrying struct{}

func (retrying) Name() string       { return "retrying" }
func (retrying) Caps() harness.Caps { return harness.Caps{Boundary: harness.StepBoundary} }
func (retrying) Step(ctx context.Context, req harness.StepRequest, out harness.Emitter) (harness.StepResult, error) {
	out.Text("Hel")
	out.ToolStart("t1", "list")
	out.ToolInput("t1", `{"pa`)
	out.(harness.Rewinder).Rewind()
	out.Text("Hello again")
	return harness.StepResult{Stop: harness.StopEnd}, nil
}

func TestRewindDropsTheFailedAttempt(t *testing.T) {
	r := newRig(t, MapResolver{"a": retrying{}})
	_, live := r.e.Subscribe()
	defer live.Close()
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.status(id, sessions.Ended)
	msgs, _, _ := r.e.Transcript(id)
	last := msgs[len(msgs)-1]
	if len(last.Parts) != 1 || last.Text() != "Hello again" {
		t.Fatalf("after rewind: %+v", last.Parts)
	}
	// A client that folded the live events from the start ends with the
	// same message: the emptied revision replaced the provisional parts.
	tr := newReplay(id, nil)
	for _, ev := range live.Drain() {
		tr.apply(ev)
	}
	got := tr.msgs[len(tr.msgs)-1]
	if len(got.Parts) != 1 || got.Text() != "Hello again" {
		t.Fatalf("folded live view: %+v", got.Parts)
	}
}
