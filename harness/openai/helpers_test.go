package openai

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

var fastRetry = Retry{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 200 * time.Millisecond}

func newModel(t *testing.T, srv *modeltest.Server, api API) *Model {
	t.Helper()
	m, err := New(Settings{API: api, BaseURL: srv.URL + "/v1", Model: "test-model", APIKey: "sk-test", Retry: fastRetry,
		Headers: map[string]string{"X-Extra": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// chatSSE frames chunks as a Chat Completions stream ending with [DONE].
func chatSSE(chunks ...string) []byte {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":` + string(b) + `},"finish_reason":null}]}`
}

const stopChunk = `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`

var testTools = []harness.ToolSpec{
	{Name: "write_file", Description: "Write a file in the workspace.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)},
	{Name: "exec", Description: "Run a command.", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
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
