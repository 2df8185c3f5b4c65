package openai

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

func TestChatParallelToolCalls(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "openai-chat-completions.sse")))
	res, rec, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "list the files and read the README")))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Joined("text"); got != "I'll list the files and read the README." {
		t.Errorf("text = %q", got)
	}
	if res.Stop != harness.StopToolUse {
		t.Errorf("stop = %s, want tool_use", res.Stop)
	}
	want := []harness.ToolCall{
		{ID: "call_Xk2f9Qw7Lr3mN8pT1vB4yZ6c", Name: "run_shell", Input: json.RawMessage(`{"command":"ls -1","workdir":"/home/user/project"}`)},
		{ID: "call_Pq8rT2sV5wY9zA3cE6gH1jK4", Name: "read_file", Input: json.RawMessage(`{"path":"README.md"}`)},
	}
	if len(res.ToolCalls) != len(want) {
		t.Fatalf("tool calls = %+v", res.ToolCalls)
	}
	inputs, order := rec.ToolInputs()
	for i, w := range want {
		g := res.ToolCalls[i]
		if g.ID != w.ID || g.Name != w.Name || string(g.Input) != string(w.Input) {
			t.Errorf("call %d = %s %s %s, want %s %s %s", i, g.ID, g.Name, g.Input, w.ID, w.Name, w.Input)
		}
		if inputs[w.ID] != string(w.Input) {
			t.Errorf("streamed input of %s = %q", w.ID, inputs[w.ID])
		}
	}
	if !slices.Equal(order, []string{want[0].ID, want[1].ID}) {
		t.Errorf("tool starts = %v", order)
	}
	if res.Usage != (sessions.Usage{InputTokens: 412, OutputTokens: 58}) {
		t.Errorf("usage = %+v", res.Usage)
	}

	// The request, against what a real client sends (PROTOCOLS.md §3).
	r := srv.Requests()[0]
	if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" || r.Header.Get("X-Extra") != "yes" {
		t.Errorf("request %s auth=%q extra=%q", r.Path, r.Header.Get("Authorization"), r.Header.Get("X-Extra"))
	}
	if n := r.Header.Get("X-Stainless-Retry-Count"); n != "" && n != "0" {
		t.Errorf("SDK retry count header %q", n)
	}
	body := r.JSON(t)
	if body["stream"] != true || get(t, body, "stream_options", "include_usage") != true || body["model"] != "test-model" {
		t.Errorf("stream/model fields: %v %v %v", body["stream"], body["stream_options"], body["model"])
	}
	if body["tool_choice"] != "auto" {
		t.Errorf("tool_choice = %v", body["tool_choice"])
	}
	tool := get(t, body, "tools", 0)
	if get(t, tool, "type") != "function" || !slices.Equal(keys(get(t, tool, "function")), []string{"description", "name", "parameters"}) {
		t.Errorf("tool = %v", tool)
	}
	if get(t, tool, "function", "parameters", "required", 0) != "path" {
		t.Errorf("schema not passed through: %v", tool)
	}
	if get(t, body, "messages", 0, "role") != "system" || get(t, body, "messages", 0, "content") != "You are a careful Go developer." {
		t.Errorf("system message = %v", get(t, body, "messages", 0))
	}
	if get(t, body, "messages", 1, "role") != "user" || get(t, body, "messages", 1, "content") != "list the files and read the README" {
		t.Errorf("user message = %v", get(t, body, "messages", 1))
	}
	if _, ok := body["max_tokens"]; ok {
		t.Error("max_tokens sent though not configured")
	}
}

func TestChatTextOnlyWithoutUsage(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "openai-chat-completions-text.sse")))
	res, rec, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "what is here?")))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Joined("text"); got != "The directory contains `README.md` and `main.go`." {
		t.Errorf("text = %q", got)
	}
	if res.Stop != harness.StopEnd || len(res.ToolCalls) != 0 || res.Usage != (sessions.Usage{}) {
		t.Errorf("result = %+v", res)
	}
	for _, e := range rec.Events() {
		if e.Kind == "usage" {
			t.Errorf("usage emitted without the server giving any: %+v", e)
		}
	}
}

func TestChatOllamaStopWithToolCall(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "openai-chat-completions-ollama-quirks.sse")))
	res, rec, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "ls")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != harness.StopToolUse || len(res.ToolCalls) != 1 {
		t.Fatalf("result = %+v", res)
	}
	c := res.ToolCalls[0]
	if c.ID != "call_a1b2c3d4" || c.Name != "run_shell" || string(c.Input) != `{"command":"ls -1","workdir":"/home/user/project"}` {
		t.Errorf("call = %+v", c)
	}
	if in, _ := rec.ToolInputs(); in["call_a1b2c3d4"] != string(c.Input) {
		t.Errorf("streamed input = %q", in["call_a1b2c3d4"])
	}
	if res.Usage != (sessions.Usage{InputTokens: 398, OutputTokens: 31}) {
		t.Errorf("usage = %+v", res.Usage)
	}
}

func TestChatServerQuirks(t *testing.T) {
	body := chatSSE(
		// vLLM and llama.cpp put reasoning in reasoning_content, newer servers in reasoning.
		`{"id":"x","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Think "}}]}`,
		`{"id":"x","choices":[{"index":0,"delta":{"reasoning":"twice."}}]}`,
		`{"id":"x","choices":[{"index":0,"delta":{"reasoning_content":"!","reasoning":"!"}}]}`,
		// A call whose id comes only on its first fragment, the next fragments without ids.
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"exec","arguments":"{\"command\":"}}]}}]}`,
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"ls\"}"}}]}}]}`,
		// A proxy that sends a second parallel call at index 0 too, arguments as an object.
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","type":"function","function":{"name":"write_file","arguments":{"path":"a.txt","content":"hi"}}}]}}]}`,
		// A server that gives no index and no id at all.
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"type":"function","function":{"name":"exec","arguments":""}}]}}]}`,
		`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	)
	srv := modeltest.NewServer(t, modeltest.SSE(body))
	res, rec, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "go")))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Joined("reasoning"); got != "Think twice.!" {
		t.Errorf("reasoning = %q", got)
	}
	if res.Stop != harness.StopToolUse || len(res.ToolCalls) != 3 {
		t.Fatalf("result = %+v", res)
	}
	if c := res.ToolCalls[0]; c.ID != "call_1" || string(c.Input) != `{"command":"ls"}` {
		t.Errorf("call 1 = %s %s", c.ID, c.Input)
	}
	if c := res.ToolCalls[1]; c.ID != "call_2" || c.Name != "write_file" || string(c.Input) != `{"path":"a.txt","content":"hi"}` {
		t.Errorf("call 2 = %s %s %s", c.ID, c.Name, c.Input)
	}
	if c := res.ToolCalls[2]; !strings.HasPrefix(c.ID, "call_") || len(c.ID) < 10 || string(c.Input) != "{}" {
		t.Errorf("call 3 = %q %s", c.ID, c.Input)
	}
	_, order := rec.ToolInputs()
	if len(order) != 3 || order[2] != res.ToolCalls[2].ID {
		t.Errorf("tool starts %v do not match the calls", order)
	}
}

func TestChatMidStreamError(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "openai-chat-completions-midstream-error.sse")))
	res, rec, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "hi")))
	if err == nil || !strings.Contains(err.Error(), "CUDA out of memory") {
		t.Fatalf("err = %v", err)
	}
	if len(res.ToolCalls) != 0 || len(rec.Notices()) != 0 {
		t.Errorf("result %+v, notices %v", res, rec.Notices())
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("a server error was retried: %d requests", len(srv.Requests()))
	}
}

func TestChatMaxTokensDropsCutCall(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.SSE(chatSSE(
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"write_file","arguments":"{\"path\":\"a"}}]}}]}`,
		`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
	)))
	m := newModel(t, srv, ChatCompletions)
	m.s.MaxTokens = 50
	res, _, err := step(t, m, request(userMsg(1, "write")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != harness.StopMaxTokens || len(res.ToolCalls) != 0 {
		t.Errorf("result = %+v", res)
	}
	if got := srv.Requests()[0].JSON(t)["max_tokens"]; got != float64(50) {
		t.Errorf("max_tokens = %v", got)
	}
}

func TestChatMalformed(t *testing.T) {
	cases := []struct {
		name string
		body []byte
	}{
		{"bad json", []byte("data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {not json\n\n")},
		{"truncated mid tool call", []byte("data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"function\":{\"name\":\"exec\",\"arguments\":\"{\\\"comm\"}}]}}]}\n\n")},
		{"arguments not json", chatSSE(
			`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"exec","arguments":"{\"command\": ls"}}]}}]}`,
			`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)},
		{"call without name", chatSSE(
			`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"arguments":"{}"}}]}}]}`,
			`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)},
		{"not a stream", []byte(`{"id":"x","object":"chat.completion","choices":[]}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Reply{Body: c.body, Header: map[string]string{"Content-Type": "text/event-stream"}})
			res, _, err := step(t, newModel(t, srv, ChatCompletions), request(userMsg(1, "go")))
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
			if len(res.ToolCalls) != 0 {
				t.Errorf("half a tool call returned: %+v", res.ToolCalls)
			}
		})
	}
}
