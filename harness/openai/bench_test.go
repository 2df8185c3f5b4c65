package openai

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

// discard is an Emitter that drops everything, so a benchmark measures the
// harness and not the recording.
type discard struct{}

func (discard) Text(string)                                   {}
func (discard) Reasoning(string)                              {}
func (discard) ToolStart(string, string)                      {}
func (discard) ToolInput(string, string)                      {}
func (discard) ToolResult(string, string, sessions.ToolState) {}
func (discard) Usage(sessions.Usage)                          {}
func (discard) Notice(string)                                 {}

// longHistory is a turn of n tool round trips.
func longHistory(n int) []sessions.Message {
	h := []sessions.Message{userMsg(1, "refactor the package")}
	a := sessions.Message{Role: sessions.Assistant}
	for i := range n {
		a.Parts = append(a.Parts,
			sessions.Part{Type: sessions.TextPart, Text: "Reading the next file."},
			sessions.Part{Type: sessions.ToolPart, Tool: &sessions.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "exec",
				Input: `{"command":"cat file.go"}`, Output: "package main\n\nfunc main() {}\n", State: sessions.ToolDone}})
	}
	return append(h, a)
}

func benchStep(b *testing.B, api API, fixture string, history []sessions.Message) {
	body := modeltest.Fixture(b, fixture)
	m, err := New(Settings{API: api, BaseURL: "http://bench.invalid/v1", Model: "m", HTTPClient: &http.Client{Transport: bodyTransport(body)}})
	if err != nil {
		b.Fatal(err)
	}
	req := request(history...)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := m.Step(context.Background(), req, discard{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChatStep(b *testing.B) {
	benchStep(b, ChatCompletions, "openai-chat-completions.sse", longHistory(0))
}

func BenchmarkChatStepHistory100(b *testing.B) {
	benchStep(b, ChatCompletions, "openai-chat-completions.sse", longHistory(100))
}

func BenchmarkResponsesStep(b *testing.B) {
	benchStep(b, Responses, "openai-responses.sse", longHistory(0))
}
