package openai

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modelkit"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

// playEngine records a step's output as the engine would: one assistant
// message with the text and a tool part per call, given results.
func playEngine(rec *modeltest.Recorder, res harness.StepResult, output string) sessions.Message {
	m := sessions.Message{ID: "a1", Turn: 1, Role: sessions.Assistant, Complete: true}
	if r := rec.Joined("reasoning"); r != "" {
		m.Parts = append(m.Parts, sessions.Part{Type: sessions.ReasoningPart, Text: r})
	}
	if t := rec.Joined("text"); t != "" {
		m.Parts = append(m.Parts, sessions.Part{Type: sessions.TextPart, Text: t})
	}
	for _, c := range res.ToolCalls {
		m.Parts = append(m.Parts, sessions.Part{Type: sessions.ToolPart, Tool: &sessions.ToolCall{
			ID: c.ID, Name: c.Name, Input: string(c.Input), Output: output, State: sessions.ToolDone}})
	}
	return m
}

func TestToolLoopChat(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.SSE(chatSSE(
			textChunk("Writing the note."),
			`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_w1","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"note.md\","}}]}}]}`,
			`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"content\":\"hi\"}"}}]}}]}`,
			`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		)),
		modeltest.SSE(chatSSE(textChunk("Done: note.md written."), stopChunk)),
	)
	m := newModel(t, srv, ChatCompletions)
	history := []sessions.Message{userMsg(1, "write a note")}
	res, rec, err := step(t, m, request(history...))
	if err != nil || res.Stop != harness.StopToolUse || len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != "write_file" {
		t.Fatalf("step 1: %+v %v", res, err)
	}
	history = append(history, playEngine(rec, res, "wrote 2 bytes to note.md"))
	res, rec, err = step(t, m, request(history...))
	if err != nil || res.Stop != harness.StopEnd || rec.Joined("text") != "Done: note.md written." {
		t.Fatalf("step 2: %+v %v %q", res, err, rec.Joined("text"))
	}

	reqs := srv.Requests()
	first := get(t, reqs[0].JSON(t), "messages").([]any)
	if len(first) != 2 {
		t.Errorf("request 1 has %d messages, want system + user", len(first))
	}
	msgs := get(t, reqs[1].JSON(t), "messages").([]any)
	if len(msgs) != 4 {
		t.Fatalf("request 2 messages = %v", msgs)
	}
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if !slices.Equal(roles, []string{"system", "user", "assistant", "tool"}) {
		t.Errorf("roles = %v", roles)
	}
	a := msgs[2]
	if get(t, a, "content") != "Writing the note." || get(t, a, "tool_calls", 0, "id") != "call_w1" ||
		get(t, a, "tool_calls", 0, "type") != "function" || get(t, a, "tool_calls", 0, "function", "name") != "write_file" ||
		get(t, a, "tool_calls", 0, "function", "arguments") != `{"path":"note.md","content":"hi"}` {
		t.Errorf("assistant message = %v", a)
	}
	if get(t, msgs[3], "tool_call_id") != "call_w1" || get(t, msgs[3], "content") != "wrote 2 bytes to note.md" {
		t.Errorf("tool message = %v", msgs[3])
	}
}

func TestToolLoopResponses(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.SSE(modeltest.Fixture(t, "openai-responses.sse")),
		modeltest.SSE(modeltest.Fixture(t, "openai-responses-final-text.sse")),
	)
	m := newModel(t, srv, Responses)
	history := []sessions.Message{userMsg(1, "list files then create hello.txt")}
	res, rec, err := step(t, m, request(history...))
	if err != nil || res.Stop != harness.StopToolUse {
		t.Fatalf("step 1: %+v %v", res, err)
	}
	history = append(history, playEngine(rec, res, "README.md\nmain.go\n"))
	res, rec, err = step(t, m, request(history...))
	if err != nil || res.Stop != harness.StopEnd || rec.Joined("text") != "I listed the files and created `hello.txt`." {
		t.Fatalf("step 2: %+v %v", res, err)
	}

	// Against what Codex sends after a function call (requests/codex-2-…).
	var codex struct {
		Input []map[string]any `json:"input"`
		Tool  map[string]any   `json:"tool"`
	}
	if err := json.Unmarshal(modeltest.Fixture(t, "responses-request-after-function-call-output.json"), &codex); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[1]
	if r.Path != "/v1/responses" {
		t.Errorf("path = %s", r.Path)
	}
	body := r.JSON(t)
	if body["stream"] != true || body["store"] != false || body["instructions"] != "You are a careful Go developer." {
		t.Errorf("stream/store/instructions = %v %v %v", body["stream"], body["store"], body["instructions"])
	}
	input := get(t, body, "input").([]any)
	if len(input) != 4 {
		t.Fatalf("input = %v", input)
	}
	if get(t, input, 0, "role") != "user" || get(t, input, 0, "content") != "list files then create hello.txt" {
		t.Errorf("user item = %v", input[0])
	}
	if get(t, input, 1, "role") != "assistant" || get(t, input, 1, "content") != "Listing the workspace." {
		t.Errorf("assistant item = %v", input[1])
	}
	call, out := input[2], input[3]
	// Codex's items also carry id and status, which a client may leave out.
	wantCall := slices.DeleteFunc(keys(codex.Input[0]), func(k string) bool { return k == "id" || k == "status" })
	wantOut := slices.DeleteFunc(keys(codex.Input[1]), func(k string) bool { return k == "id" })
	if !slices.Equal(keys(call), wantCall) || !slices.Equal(keys(out), wantOut) {
		t.Errorf("item keys %v %v, want %v %v", keys(call), keys(out), wantCall, wantOut)
	}
	if get(t, call, "call_id") != "call_5eed00000000000000000000" || get(t, call, "name") != "exec_command" ||
		get(t, call, "arguments") != `{"cmd": "ls -1"}` || get(t, out, "call_id") != "call_5eed00000000000000000000" ||
		get(t, out, "output") != "README.md\nmain.go\n" {
		t.Errorf("call %v output %v", call, out)
	}
	tool := get(t, body, "tools", 0)
	if !slices.Equal(keys(tool), keys(codex.Tool)) || get(t, tool, "type") != "function" || get(t, tool, "strict") != false {
		t.Errorf("tool keys %v, want %v", keys(tool), keys(codex.Tool))
	}
}

func TestHistoryConversion(t *testing.T) {
	tool := func(id string, state sessions.ToolState, out string) sessions.Part {
		return sessions.Part{Type: sessions.ToolPart, Tool: &sessions.ToolCall{ID: id, Name: "exec", Input: `{"command":"make"}`, Output: out, State: state}}
	}
	history := []sessions.Message{
		userMsg(1, "build it"),
		{Role: sessions.Notice, Parts: []sessions.Part{{Type: sessions.TextPart, Text: "retrying in 8s: overloaded"}}},
		{Role: sessions.Assistant, Parts: []sessions.Part{
			{Type: sessions.ReasoningPart, Text: "private thoughts"},
			{Type: sessions.TextPart, Text: "Building."},
			tool("c1", sessions.ToolDone, "ok"),
			tool("c2", sessions.ToolError, "exit 2"),
			{Type: sessions.TextPart, Text: "Retrying."},
			tool("c3", sessions.ToolDenied, "not now"),
			tool("c4", sessions.ToolInterrupted, ""),
			tool("c5", sessions.ToolRunning, ""),
			{Type: sessions.ErrorPart, Text: "stream failed"},
		}},
		userMsg(2, "why?"),
	}
	ts := modelkit.Turns(history)
	if len(ts) != 4 {
		t.Fatalf("turns = %+v", ts)
	}
	if ts[1].Text != "Building." || len(ts[1].Calls) != 2 || ts[2].Text != "Retrying." || len(ts[2].Calls) != 3 || ts[3].Text != "why?" {
		t.Errorf("turns = %+v", ts)
	}
	results := []string{ts[1].Calls[0].Result, ts[1].Calls[1].Result, ts[2].Calls[0].Result, ts[2].Calls[1].Result, ts[2].Calls[2].Result}
	want := []string{"ok", "Error: exit 2", "The user denied this tool call. Their message: not now",
		"The tool call was interrupted before it finished.", "The tool call was interrupted before it finished."}
	if !slices.Equal(results, want) {
		t.Errorf("results = %q", results)
	}
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "openai-chat-completions-text.sse")))
	if _, _, err := step(t, newModel(t, srv, ChatCompletions), request(history...)); err != nil {
		t.Fatal(err)
	}
	raw := string(srv.Requests()[0].Body)
	for _, leak := range []string{"private thoughts", "retrying in 8s", "stream failed"} {
		if strings.Contains(raw, leak) {
			t.Errorf("request carries %q", leak)
		}
	}
	msgs := get(t, srv.Requests()[0].JSON(t), "messages").([]any)
	// system, user, assistant+2 calls, 2 tools, assistant+3 calls, 3 tools, user
	if len(msgs) != 10 {
		t.Errorf("%d messages", len(msgs))
	}
}
