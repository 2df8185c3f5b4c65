package core

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/harness/openai"
	"github.com/atelier-studio/atelier/sessions"
)

// chunk is one Chat Completions stream chunk.
func chunk(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return fmt.Sprintf(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n", delta, f)
}

// TestModelToolLoopThroughTheEngine drives the openai harness against a
// fake Chat Completions server through the real engine: the model asks to
// write a file, the session parks on an approval that shows the diff, the
// operator allows it, the file is written, the tool result reaches the
// model in its next request, and the final answer ends the session with its
// usage recorded.
func TestModelToolLoopThroughTheEngine(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"path": "notes/hello.txt", "content": "hello\n"})
	first := chunk(`{"role":"assistant","content":"Writing it."}`, "") +
		chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write_file","arguments":%q}}]}`, string(args)), "") +
		chunk(`{}`, "tool_calls") +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}}` + "\n\n" +
		"data: [DONE]\n\n"
	second := chunk(`{"role":"assistant","content":"Done: notes/hello.txt exists."}`, "") +
		chunk(`{}`, "stop") +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":150,"completion_tokens":10,"total_tokens":160}}` + "\n\n" +
		"data: [DONE]\n\n"
	srv := modeltest.NewServer(t, modeltest.SSE([]byte(first)), modeltest.SSE([]byte(second)))
	m, err := openai.New(openai.Settings{BaseURL: srv.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, MapResolver{"local": m})
	id := r.create(CreateOptions{Agent: "local", AutoStart: true, Instructions: "write hello"}).ID
	it := r.interaction(id, sessions.Approval)
	if it.Tool != "write_file" || it.Path != "notes/hello.txt" || !strings.Contains(it.Diff, "+hello") {
		t.Fatalf("approval %+v", it)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "notes/hello.txt")); err == nil {
		t.Fatal("written before the approval")
	}
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowOnce}); err != nil {
		t.Fatal(err)
	}
	s := r.status(id, sessions.Ended)
	if s.EndReason != sessions.Completed || s.Usage.InputTokens != 250 || s.Usage.OutputTokens != 30 {
		t.Fatalf("ended %+v", s)
	}
	if b, _ := os.ReadFile(filepath.Join(r.ws, "notes/hello.txt")); string(b) != "hello\n" {
		t.Fatalf("file %q", b)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[1].Body)
	if !strings.Contains(body, `"role":"tool"`) || !strings.Contains(body, "wrote 6 bytes to notes/hello.txt") {
		t.Fatalf("second request lacks the tool result: %s", body)
	}
	msgs, _, _ := r.e.Transcript(id)
	if last := msgs[len(msgs)-1]; last.Text() != "Done: notes/hello.txt exists." {
		t.Fatalf("last message %+v", last)
	}
}
