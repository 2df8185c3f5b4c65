package anthropic

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

var fastRetry = Retry{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 200 * time.Millisecond}

func newModel(t *testing.T, srv *modeltest.Server, budget int64) *Model {
	t.Helper()
	m, err := New(Settings{BaseURL: srv.URL, Model: "claude-test", APIKey: "sk-ant-test", ThinkingBudget: budget, Retry: fastRetry,
		Headers: map[string]string{"anthropic-beta": "test-beta"}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var testTools = []harness.ToolSpec{
	{Name: "write_file", Description: "Write a file in the workspace.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`)},
	{Name: "Bash", Description: "Run a command.", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"}},"required":["command"]}`)},
}

func userMsg(turn int, text string) sessions.Message {
	return sessions.Message{ID: "u" + text, Turn: turn, Role: sessions.User, Parts: []sessions.Part{{Type: sessions.TextPart, Text: text}}, Complete: true}
}

func request(history ...sessions.Message) harness.StepRequest {
	return harness.StepRequest{SessionID: "s1", Step: 1, Instructions: "You are a careful Go developer.", History: history, Tools: testTools}
}

func step(t *testing.T, m *Model, req harness.StepRequest) (harness.StepResult, *modeltest.Recorder, error) {
	t.Helper()
	rec := &modeltest.Recorder{}
	res, err := m.Step(context.Background(), req, rec)
	return res, rec, err
}

// playEngine records a step's output as the engine would: one assistant
// message with the reasoning, the text and a tool part per call, with results.
func playEngine(rec *modeltest.Recorder, res harness.StepResult, output string, state sessions.ToolState) sessions.Message {
	m := sessions.Message{ID: "a1", Turn: 1, Role: sessions.Assistant, Complete: true}
	if r := rec.Joined("reasoning"); r != "" {
		m.Parts = append(m.Parts, sessions.Part{Type: sessions.ReasoningPart, Text: r})
	}
	if t := rec.Joined("text"); t != "" {
		m.Parts = append(m.Parts, sessions.Part{Type: sessions.TextPart, Text: t})
	}
	for _, c := range res.ToolCalls {
		m.Parts = append(m.Parts, sessions.Part{Type: sessions.ToolPart, Tool: &sessions.ToolCall{
			ID: c.ID, Name: c.Name, Input: string(c.Input), Output: output, State: state}})
	}
	return m
}

// get walks a decoded JSON value by keys and indexes.
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: not an object: %v", p, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: not an array that long: %v", p, v)
			}
			v = a[k]
		}
	}
	return v
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	return slices.Sorted(maps.Keys(m))
}
