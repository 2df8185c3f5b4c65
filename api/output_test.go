package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// TestOutputSchemaOverTheAPI: a create and a send carry an output schema;
// the demo answers with a value built from it; the session and the key's
// result carry the validated JSON; an unusable schema is refused with its
// own problem code and nothing is made; a steer takes no schema.
func TestOutputSchemaOverTheAPI(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 20*time.Second)
	schema := json.RawMessage(`{"type":"object","required":["summary","count"],"properties":{"summary":{"type":"string"},"count":{"type":"integer","minimum":2}}}`)

	if _, err := r.c.Create(ctx, client.CreateRequest{Task: "t", AutoStart: true, OutputSchema: json.RawMessage(`{"type":"objekt"}`)}); !client.IsCode(err, client.CodeOutputSchema) {
		t.Fatalf("create with an unusable schema: %v", err)
	}
	if list, err := r.c.Sessions(ctx, false); err != nil || len(list) != 0 {
		t.Fatalf("sessions after the refused create: %d, %v", len(list), err)
	}

	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "report", Mode: "continuous", AutoStart: true, OutputSchema: schema})
	if err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "the awaited state", func() bool {
		s, err := r.c.Session(ctx, rec.ID)
		return err == nil && s.Status == sessions.Waiting
	})
	got, err := r.c.Session(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Output == nil || !got.Output.Valid || got.Output.Turn != 1 || string(got.OutputSchema) != string(schema) {
		t.Fatalf("the task's output: %+v (schema %s)", got.Output, got.OutputSchema)
	}
	var v struct {
		Summary string
		Count   int
	}
	if err := json.Unmarshal(got.Output.Value, &v); err != nil || v.Count < 2 {
		t.Fatalf("value %s (%v)", got.Output.Value, err)
	}

	if _, err := r.c.Input(ctx, rec.ID, false, client.InputRequest{Text: "again", Key: "k", OutputSchema: json.RawMessage(`{"minLength":"x"}`)}); !client.IsCode(err, client.CodeOutputSchema) {
		t.Fatalf("send with an unusable schema: %v", err)
	}
	if _, err := r.c.Input(ctx, rec.ID, true, client.InputRequest{Text: "steer", OutputSchema: schema}); !client.IsCode(err, client.CodeBadRequest) {
		t.Fatalf("steer with a schema: %v", err)
	}
	rc, err := r.c.Input(ctx, rec.ID, false, client.InputRequest{Text: "again", Key: "k", OutputSchema: json.RawMessage(`{"type":"array","minItems":2,"items":{"type":"boolean"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	var res core.PromptResult
	poll.Until(t, "the awaited state", func() bool {
		k, err := r.c.Keys(ctx, rec.ID)
		if err != nil || len(k) != 1 || k[0].State != sessions.KeyDone {
			return false
		}
		return json.Unmarshal(k[0].Result, &res) == nil
	})
	if res.Output == nil || !res.Output.Valid || res.Output.Prompt != rc.ID || string(res.Output.Value) != "[true,false]" {
		t.Fatalf("the key's result: %+v", res.Output)
	}
	if !strings.Contains(res.Text, "```json") {
		t.Fatalf("the demo's answer: %q", res.Text)
	}
}
