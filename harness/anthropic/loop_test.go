package anthropic

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

// claudeCode is what Claude Code sent after a tool result
// (requests/claude-code-2-messages-after-tool-result.json).
func claudeCode(t *testing.T) []map[string]any {
	var f struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(modeltest.Fixture(t, "anthropic-request-after-tool-result.json"), &f); err != nil {
		t.Fatal(err)
	}
	return f.Messages
}

func TestToolLoopWithThinking(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.SSE(modeltest.Fixture(t, "anthropic-messages.sse")),
		modeltest.SSE(modeltest.Fixture(t, "anthropic-messages-final-text.sse")),
	)
	m := newModel(t, srv, 2048)
	history := []sessions.Message{userMsg(1, "list the files")}
	res, rec, err := step(t, m, request(history...))
	if err != nil || res.Stop != harness.StopToolUse {
		t.Fatalf("step 1: %+v %v", res, err)
	}
	history = append(history, playEngine(rec, res, "README.md\nmain.go", sessions.ToolDone))
	res, rec, err = step(t, m, request(history...))
	if err != nil || res.Stop != harness.StopEnd {
		t.Fatalf("step 2: %+v %v", res, err)
	}
	if len(rec.Notices()) != 0 {
		t.Errorf("notices = %q", rec.Notices())
	}

	body := srv.Requests()[1].JSON(t)
	if get(t, body, "thinking", "type") != "enabled" {
		t.Errorf("thinking dropped on the tool loop: %v", body["thinking"])
	}
	msgs := get(t, body, "messages").([]any)
	if len(msgs) != 3 {
		t.Fatalf("messages = %v", msgs)
	}
	cc := claudeCode(t)
	a, u := msgs[1], msgs[2]
	if get(t, a, "role") != "assistant" || get(t, u, "role") != "user" {
		t.Fatalf("roles %v %v", get(t, a, "role"), get(t, u, "role"))
	}
	// Block for block, the shapes Claude Code sends (less its cache_control;
	// a tool result's content goes as text blocks, which the API takes as
	// it takes Claude Code's plain string).
	want := [][]string{}
	for _, b := range cc[0]["content"].([]any) {
		want = append(want, keys(b))
	}
	want = append(want, slices.DeleteFunc(keys(cc[1]["content"].([]any)[0]), func(k string) bool { return k == "cache_control" }))
	got := [][]string{}
	for _, b := range get(t, a, "content").([]any) {
		got = append(got, keys(b))
	}
	got = append(got, keys(get(t, u, "content", 0)))
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("block keys\n got %v\nwant %v", got, want)
	}
	th := get(t, a, "content", 0)
	if get(t, th, "type") != "thinking" || get(t, th, "thinking") != "The user wants a directory listing. I'll run ls." ||
		get(t, th, "signature") != "EqQBCkYIBxgCKkDmockSignatureAAAAbase64==" {
		t.Errorf("thinking block = %v", th)
	}
	tu := get(t, a, "content", 2)
	if get(t, tu, "id") != "toolu_015eed000000000000000000" || get(t, tu, "name") != "Bash" || get(t, tu, "input", "command") != "ls -1" {
		t.Errorf("tool_use = %v", tu)
	}
	tr := get(t, u, "content", 0)
	if get(t, tr, "tool_use_id") != "toolu_015eed000000000000000000" || get(t, tr, "content", 0, "text") != "README.md\nmain.go" || get(t, tr, "is_error") != false {
		t.Errorf("tool_result = %v", tr)
	}
}

func TestThinkingOffWithoutSignature(t *testing.T) {
	// Another process ran step 1: this Model never saw its signed thinking.
	first := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "anthropic-messages.sse")))
	res, rec, err := step(t, newModel(t, first, 2048), request(userMsg(1, "list")))
	if err != nil {
		t.Fatal(err)
	}
	history := []sessions.Message{userMsg(1, "list"), playEngine(rec, res, "README.md", sessions.ToolDone)}
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "anthropic-messages-final-text.sse")))
	res, rec, err = step(t, newModel(t, srv, 2048), request(history...))
	if err != nil || res.Stop != harness.StopEnd {
		t.Fatalf("%+v %v", res, err)
	}
	body := srv.Requests()[0].JSON(t)
	if _, ok := body["thinking"]; ok {
		t.Errorf("thinking sent without the signed blocks: %v", body["thinking"])
	}
	if strings.Contains(string(srv.Requests()[0].Body), `"type":"thinking"`) {
		t.Error("unsigned thinking block sent")
	}
	if n := rec.Notices(); len(n) != 1 || !strings.Contains(n[0], "thinking is off for this step") {
		t.Errorf("notices = %q", n)
	}
}

func TestHistoryConversion(t *testing.T) {
	tool := func(id string, state sessions.ToolState, out string) sessions.Part {
		return sessions.Part{Type: sessions.ToolPart, Tool: &sessions.ToolCall{ID: id, Name: "Bash", Input: `{"command":"make"}`, Output: out, State: state}}
	}
	history := []sessions.Message{
		userMsg(1, "build it"),
		userMsg(1, "and test it"),
		{Role: sessions.Notice, Parts: []sessions.Part{{Type: sessions.TextPart, Text: "retrying in 8s: overloaded"}}},
		{Role: sessions.Assistant, Parts: []sessions.Part{
			{Type: sessions.ReasoningPart, Text: "private thoughts"},
			{Type: sessions.TextPart, Text: "Building."},
			tool("call_1", sessions.ToolDone, "ok"),
			tool("chatcmpl-tool.2/x", sessions.ToolDenied, "not now"),
			{Type: sessions.TextPart, Text: "Trying again."},
			tool("call_3", sessions.ToolRunning, ""),
		}},
		userMsg(2, "why?"),
	}
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "anthropic-messages-final-text.sse")))
	if _, _, err := step(t, newModel(t, srv, 0), request(history...)); err != nil {
		t.Fatal(err)
	}
	raw := string(srv.Requests()[0].Body)
	for _, leak := range []string{"private thoughts", "retrying in 8s"} {
		if strings.Contains(raw, leak) {
			t.Errorf("request carries %q", leak)
		}
	}
	msgs := get(t, srv.Requests()[0].JSON(t), "messages").([]any)
	var shape []string
	for _, m := range msgs {
		var types []string
		for _, b := range get(t, m, "content").([]any) {
			types = append(types, get(t, b, "type").(string))
		}
		shape = append(shape, get(t, m, "role").(string)+":"+strings.Join(types, ","))
	}
	want := []string{
		"user:text,text",
		"assistant:text,tool_use,tool_use",
		"user:tool_result,tool_result",
		"assistant:text,tool_use",
		"user:tool_result,text", // results first, then the next prompt
	}
	if !slices.Equal(shape, want) {
		t.Errorf("shape\n got %v\nwant %v", shape, want)
	}
	denied := get(t, msgs, 2, "content", 1)
	if get(t, denied, "tool_use_id") != "chatcmpl-tool_2_x" || get(t, denied, "is_error") != true ||
		get(t, denied, "content", 0, "text") != "The user denied this tool call. Their message: not now" {
		t.Errorf("denied result = %v", denied)
	}
	if get(t, msgs, 1, "content", 2, "id") != "chatcmpl-tool_2_x" {
		t.Errorf("tool_use id not made valid: %v", get(t, msgs, 1, "content", 2))
	}
	if get(t, msgs, 4, "content", 0, "is_error") != true || !strings.Contains(get(t, msgs, 4, "content", 0, "content", 0, "text").(string), "interrupted") {
		t.Errorf("dangling call result = %v", get(t, msgs, 4, "content", 0))
	}
}

// TestGarbledStreams feeds damaged copies of the fixtures through a Step:
// no panic, no hang, and tool calls only whole: on success, announced, with
// an object for input.
func TestGarbledStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, name := range []string{"anthropic-messages.sse", "anthropic-messages-final-text.sse", "anthropic-messages-error-overloaded.sse"} {
		orig := modeltest.Fixture(t, name)
		for range 150 {
			body := modeltest.Garble(rng, orig)
			srv := modeltest.NewServer(t, modeltest.Reply{Body: body, Header: map[string]string{"Content-Type": "text/event-stream"}})
			m, err := New(Settings{BaseURL: srv.URL, Model: "m", Retry: Retry{Attempts: 1}})
			if err != nil {
				t.Fatal(err)
			}
			res, rec, err := step(t, m, request(userMsg(1, "go")))
			if err != nil {
				if len(res.ToolCalls) != 0 {
					t.Fatalf("tool calls with an error: %+v", res.ToolCalls)
				}
				continue
			}
			starts := map[string]string{}
			for _, e := range rec.Events() {
				if e.Kind == "tool_start" {
					starts[e.ID] = e.Name
				}
			}
			for _, c := range res.ToolCalls {
				var obj map[string]any
				if json.Unmarshal(c.Input, &obj) != nil || obj == nil {
					t.Fatalf("input of %s is not an object: %q\n%s", c.ID, c.Input, body)
				}
				if starts[c.ID] != c.Name {
					t.Fatalf("call %s (%s) not announced: %v", c.ID, c.Name, starts)
				}
			}
		}
	}
}
