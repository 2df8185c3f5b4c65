package core

import (
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestContextOfAModel: a model's context counts the history it is shown
// and offers the built-in tools, sorted, each with its schema; a waiting
// session has no next input until one is queued.
func TestContextOfAModel(t *testing.T) {
	r := openRig(t, t.TempDir(), MapResolver{"a": &scripted.Model{Script: []scripted.Step{{Text: "done"}}}})
	id := r.create(CreateOptions{Agent: "a", Instructions: "do it", Mode: sessions.Continuous, AutoStart: true}).ID
	r.status(id, sessions.Waiting)
	c, err := r.e.Context(id)
	if err != nil {
		t.Fatal(err)
	}
	msgs, _, _ := r.e.Transcript(id)
	bytes := 0
	for _, m := range msgs {
		bytes += len(m.Text())
	}
	if c.Kind != ContextModel || c.Messages != len(msgs) || c.Bytes != bytes || c.Next != "" || c.Compacted {
		t.Fatalf("context %+v, transcript of %d messages, %d bytes", c, len(msgs), bytes)
	}
	for i, tool := range c.Tools {
		if len(tool.Schema) == 0 || i > 0 && c.Tools[i-1].Name >= tool.Name {
			t.Fatalf("tools not sorted or without a schema: %+v", c.Tools)
		}
	}
	if len(c.Tools) != len(builtinTools()) {
		t.Fatalf("%d tools offered, want all %d", len(c.Tools), len(builtinTools()))
	}
	if _, err := r.e.Context("nosuch"); err == nil {
		t.Fatal("an unknown session has no context")
	}
}
