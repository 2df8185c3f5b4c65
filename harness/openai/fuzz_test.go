package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/atelier-studio/atelier/harness/modeltest"
)

// bodyTransport answers every request with one SSE body, in memory.
type bodyTransport []byte

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(b)), Request: r}, nil
}

// checkStream feeds a body through a Step: it must not panic or hang, and
// whatever it returns must hold together: tool calls only on success, each
// with JSON input, each announced to the Emitter under its id and name.
func checkStream(t *testing.T, api API, body []byte) {
	m, err := New(Settings{API: api, BaseURL: "http://fuzz.invalid/v1", Model: "m", Retry: Retry{Attempts: 1},
		HTTPClient: &http.Client{Transport: bodyTransport(body)}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &modeltest.Recorder{}
	res, err := m.Step(context.Background(), request(userMsg(1, "go")), rec)
	if err != nil {
		if len(res.ToolCalls) != 0 {
			t.Fatalf("tool calls returned with an error: %+v", res.ToolCalls)
		}
		return
	}
	starts := map[string]string{}
	for _, e := range rec.Events() {
		if e.Kind == "tool_start" {
			starts[e.ID] = e.Name
		}
	}
	for _, c := range res.ToolCalls {
		if !json.Valid(c.Input) {
			t.Fatalf("tool call %s input is not JSON: %q", c.ID, c.Input)
		}
		if name, ok := starts[c.ID]; !ok || name != c.Name {
			t.Fatalf("tool call %s (%s) was not started as such: %v", c.ID, c.Name, starts)
		}
	}
}

var (
	chatSeeds      = []string{"openai-chat-completions.sse", "openai-chat-completions-ollama-quirks.sse", "openai-chat-completions-midstream-error.sse", "openai-chat-completions-text.sse"}
	responsesSeeds = []string{"openai-responses.sse", "openai-responses-final-text.sse", "openai-responses-custom-tool-apply-patch.sse"}
)

func FuzzChatStream(f *testing.F) {
	for _, s := range chatSeeds {
		f.Add(modeltest.Fixture(f, s))
	}
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1}]}}]}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) { checkStream(t, ChatCompletions, body) })
}

func FuzzResponsesStream(f *testing.F) {
	for _, s := range responsesSeeds {
		f.Add(modeltest.Fixture(f, s))
	}
	f.Add([]byte("event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\",\"arguments\":{}}}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) { checkStream(t, Responses, body) })
}

// TestGarbledStreams runs the same checks over many garbled copies of the
// fixtures (bytes flipped, cut, spliced, lines dropped or doubled), since
// the fuzzing engine crawls on the SDK's huge coverage map.
func TestGarbledStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, set := range []struct {
		api   API
		seeds []string
	}{{ChatCompletions, chatSeeds}, {Responses, responsesSeeds}} {
		for _, name := range set.seeds {
			orig := modeltest.Fixture(t, name)
			for range 150 {
				checkStream(t, set.api, modeltest.Garble(rng, orig))
			}
		}
	}
}
