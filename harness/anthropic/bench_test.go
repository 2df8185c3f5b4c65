package anthropic

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

// bodyTransport answers every request with one SSE body, in memory.
type bodyTransport []byte

func (t bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(t)), Request: r}, nil
}

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

func benchStep(b *testing.B, history []sessions.Message) {
	body := modeltest.Fixture(b, "anthropic-messages.sse")
	m, err := New(Settings{BaseURL: "http://bench.invalid", Model: "m", ThinkingBudget: 2048, HTTPClient: &http.Client{Transport: bodyTransport(body)}})
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

func BenchmarkMessagesStep(b *testing.B) {
	benchStep(b, []sessions.Message{userMsg(1, "list the files")})
}

func BenchmarkMessagesStepHistory100(b *testing.B) {
	h := []sessions.Message{userMsg(1, "refactor the package")}
	a := sessions.Message{Role: sessions.Assistant}
	for i := range 100 {
		a.Parts = append(a.Parts,
			sessions.Part{Type: sessions.TextPart, Text: "Reading the next file."},
			sessions.Part{Type: sessions.ToolPart, Tool: &sessions.ToolCall{ID: fmt.Sprintf("toolu_%d", i), Name: "Bash",
				Input: `{"command":"cat file.go"}`, Output: "package main\n\nfunc main() {}\n", State: sessions.ToolDone}})
	}
	benchStep(b, append(h, a))
}
