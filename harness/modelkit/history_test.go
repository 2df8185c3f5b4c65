package modelkit

import (
	"testing"

	"github.com/atelier-studio/atelier/sessions"
)

// TestTurnsCarrySignedThinking: each step's signed or redacted thinking
// goes with that step's turn; unsigned thinking is not sent.
func TestTurnsCarrySignedThinking(t *testing.T) {
	call := func(id string) sessions.Part {
		return sessions.Part{Type: sessions.ToolPart, Tool: &sessions.ToolCall{ID: id, Name: "x", State: sessions.ToolDone, Output: "ok"}}
	}
	m := sessions.Message{Role: sessions.Assistant, Parts: []sessions.Part{
		{Type: sessions.ReasoningPart, Text: "first", Signature: "s1"},
		{Type: sessions.TextPart, Text: "step one"},
		call("c1"),
		{Type: sessions.ReasoningPart, Redacted: "enc"},
		{Type: sessions.ReasoningPart, Text: "unsigned"},
		call("c2"),
		{Type: sessions.TextPart, Text: "done"},
	}}
	ts := Turns([]sessions.Message{m})
	if len(ts) != 3 {
		t.Fatalf("turns %+v", ts)
	}
	if th := ts[0].Thinking; len(th) != 1 || th[0].Signature != "s1" || th[0].Text != "first" || ts[0].Calls[0].ID != "c1" {
		t.Fatalf("step one %+v", ts[0])
	}
	if th := ts[1].Thinking; len(th) != 1 || th[0].Redacted != "enc" || ts[1].Calls[0].ID != "c2" {
		t.Fatalf("step two %+v", ts[1])
	}
	if len(ts[2].Thinking) != 0 || ts[2].Text != "done" {
		t.Fatalf("step three %+v", ts[2])
	}
}
