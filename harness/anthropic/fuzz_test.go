package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/atelier-studio/atelier/harness/modeltest"
)

// FuzzMessagesStream: whatever the bytes, a Step neither panics nor hangs,
// and returns tool calls only on success, each announced and with an object
// for input. (Run it with -fuzz for long sessions; `go test` runs the seeds,
// and TestGarbledStreams covers many garbled fixtures on every run.)
func FuzzMessagesStream(f *testing.F) {
	for _, s := range []string{"anthropic-messages.sse", "anthropic-messages-final-text.sse", "anthropic-messages-error-overloaded.sse"} {
		f.Add(modeltest.Fixture(f, s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := New(Settings{BaseURL: "http://fuzz.invalid", Model: "m", Retry: Retry{Attempts: 1}, HTTPClient: &http.Client{Transport: bodyTransport(body)}})
		if err != nil {
			t.Fatal(err)
		}
		rec := &modeltest.Recorder{}
		res, err := m.Step(context.Background(), request(userMsg(1, "go")), rec)
		if err != nil {
			if len(res.ToolCalls) != 0 {
				t.Fatalf("tool calls with an error: %+v", res.ToolCalls)
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
			var obj map[string]any
			if json.Unmarshal(c.Input, &obj) != nil || obj == nil || starts[c.ID] != c.Name {
				t.Fatalf("bad call %s %s %q (%v)", c.ID, c.Name, c.Input, starts)
			}
		}
	})
}
