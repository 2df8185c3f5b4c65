package core

import (
	"encoding/json"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// TestStartWithoutTaskTakesQueuedPrompt: a session created without a task
// (a workflow's) starts with its first queued prompt as its first turn;
// its title is never run as a task. (Before: the title ran first, then the
// prompt, two turns.)
func TestStartWithoutTaskTakesQueuedPrompt(t *testing.T) {
	// A prompt with an output schema: the demo answers it at once.
	r := newRig(t, MapResolver{"demo": &harness.Demo{}})
	rec := r.create(CreateOptions{Agent: "demo", Title: "workflow x: 1", Mode: sessions.Continuous})
	if _, err := r.e.As("").Prompt(rec.ID, Prompt{Text: "the first step", Key: "k1", Output: json.RawMessage(`{"type":"object"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := r.e.As("").Start(rec.ID); err != nil {
		t.Fatal(err)
	}
	got := r.status(rec.ID, sessions.Waiting)
	if got.Turns != 1 {
		t.Errorf("turns %d, want 1", got.Turns)
	}
	msgs, _, err := r.e.Transcript(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) == 0 || msgs[0].Role != sessions.User || msgs[0].Parts[0].Text != "the first step" {
		t.Errorf("first message %+v", msgs)
	}
	if k, ok, _ := r.e.KeyResult(rec.ID, "k1"); !ok || k.State != sessions.KeyDone {
		t.Errorf("key k1: %+v", k)
	}
}
