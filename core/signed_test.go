package core

import (
	"context"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// thinker streams signed thinking, as the Anthropic harness does.
type thinker struct{}

func (thinker) Name() string       { return "thinker" }
func (thinker) Caps() harness.Caps { return harness.Caps{Boundary: harness.StepBoundary} }
func (thinker) Step(ctx context.Context, req harness.StepRequest, out harness.Emitter) (harness.StepResult, error) {
	out.Reasoning("let me think")
	out.(harness.Signer).SignReasoning("sig-1")
	out.(harness.Signer).RedactedReasoning("encrypted")
	out.Text("answer")
	return harness.StepResult{Stop: harness.StopEnd}, nil
}

// TestSignedThinkingIsKept: the engine keeps a step's signed and redacted
// thinking in the transcript, across a reopen.
func TestSignedThinkingIsKept(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": thinker{}})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.status(id, sessions.Ended)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ws, Options{Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	msgs, _, _ := e.Transcript(id)
	parts := msgs[len(msgs)-1].Parts
	if len(parts) != 3 || parts[0].Signature != "sig-1" || parts[0].Text != "let me think" ||
		parts[1].Redacted != "encrypted" || parts[2].Text != "answer" {
		t.Fatalf("parts %+v", parts)
	}
}
