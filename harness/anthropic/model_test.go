package anthropic

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

func TestThinkingTextAndToolUse(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "anthropic-messages.sse")))
	res, rec, err := step(t, newModel(t, srv, 2048), request(userMsg(1, "list the files")))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Joined("reasoning"); got != "The user wants a directory listing. I'll run ls." {
		t.Errorf("reasoning = %q", got)
	}
	if got := rec.Joined("text"); got != "I'll list the files in the current directory." {
		t.Errorf("text = %q", got)
	}
	if res.Stop != harness.StopToolUse || len(res.ToolCalls) != 1 {
		t.Fatalf("result = %+v", res)
	}
	c := res.ToolCalls[0]
	wantIn := `{"command": "ls -1", "description": "List files in current directory"}`
	if c.ID != "toolu_015eed000000000000000000" || c.Name != "Bash" || string(c.Input) != wantIn {
		t.Errorf("call = %s %s %s", c.ID, c.Name, c.Input)
	}
	if in, order := rec.ToolInputs(); in[c.ID] != wantIn || len(order) != 1 {
		t.Errorf("streamed input = %q (%v)", in[c.ID], order)
	}
	if res.Usage != (sessions.Usage{InputTokens: 1205, OutputTokens: 45}) {
		t.Errorf("usage = %+v", res.Usage)
	}

	r := srv.Requests()[0]
	if r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-ant-test" || r.Header.Get("Anthropic-Version") != "2023-06-01" || r.Header.Get("Anthropic-Beta") != "test-beta" {
		t.Errorf("request %s key=%q version=%q beta=%q", r.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"), r.Header.Get("Anthropic-Beta"))
	}
	body := r.JSON(t)
	if body["stream"] != true || body["model"] != "claude-test" || body["max_tokens"] != float64(DefaultMaxTokens+2048) {
		t.Errorf("stream/model/max_tokens = %v %v %v", body["stream"], body["model"], body["max_tokens"])
	}
	if get(t, body, "thinking", "type") != "enabled" || get(t, body, "thinking", "budget_tokens") != float64(2048) {
		t.Errorf("thinking = %v", body["thinking"])
	}
	if get(t, body, "system", 0, "text") != "You are a careful Go developer." {
		t.Errorf("system = %v", body["system"])
	}
	tool := get(t, body, "tools", 0)
	if !slices.Equal(keys(tool), []string{"description", "input_schema", "name"}) ||
		get(t, tool, "input_schema", "type") != "object" || get(t, tool, "input_schema", "required", 1) != "content" ||
		get(t, tool, "input_schema", "additionalProperties") != false {
		t.Errorf("tool = %v", tool)
	}
	if get(t, body, "messages", 0, "role") != "user" || get(t, body, "messages", 0, "content", 0, "text") != "list the files" {
		t.Errorf("messages = %v", body["messages"])
	}
}

func TestFinalText(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "anthropic-messages-final-text.sse")))
	res, rec, err := step(t, newModel(t, srv, 0), request(userMsg(1, "done?")))
	if err != nil || res.Stop != harness.StopEnd || len(res.ToolCalls) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if rec.Joined("text") != "The directory contains `README.md` and `main.go`. Done." || res.Usage.OutputTokens != 15 {
		t.Errorf("text %q usage %+v", rec.Joined("text"), res.Usage)
	}
	if _, ok := srv.Requests()[0].JSON(t)["thinking"]; ok {
		t.Error("thinking sent though off")
	}
}

func TestOverloadedMidStream(t *testing.T) {
	overloaded := modeltest.Fixture(t, "anthropic-messages-error-overloaded.sse")
	t.Run("engine can rewind", func(t *testing.T) {
		srv := modeltest.NewServer(t, modeltest.SSE(overloaded), modeltest.SSE(modeltest.Fixture(t, "anthropic-messages-final-text.sse")))
		rec := &modeltest.Rewinder{}
		res, err := newModel(t, srv, 0).Step(context.Background(), request(userMsg(1, "hi")), rec)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Rewinds != 1 || res.Stop != harness.StopEnd || rec.Joined("text") != "The directory contains `README.md` and `main.go`. Done." {
			t.Errorf("rewinds %d stop %s text %q", rec.Rewinds, res.Stop, rec.Joined("text"))
		}
		if n := rec.Notices(); len(n) != 1 || !strings.HasPrefix(n[0], "retrying in ") || !strings.HasSuffix(n[0], ": overloaded") {
			t.Errorf("notices = %q", n)
		}
	})
	t.Run("engine cannot rewind", func(t *testing.T) {
		srv := modeltest.NewServer(t, modeltest.SSE(overloaded))
		_, rec, err := step(t, newModel(t, srv, 0), request(userMsg(1, "hi")))
		if !errors.Is(err, ErrOverloaded) || !strings.Contains(err.Error(), "not retried") || !strings.Contains(err.Error(), "Overloaded") {
			t.Fatalf("err = %v", err)
		}
		if len(rec.Notices()) != 0 {
			t.Errorf("notices = %q", rec.Notices())
		}
	})
}

func TestOverloadedStatusThenSuccess(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.JSONError(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		modeltest.Reply{Status: 429, Body: []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`),
			Header: map[string]string{"Content-Type": "application/json", "Retry-After": "0.02"}},
		modeltest.SSE(modeltest.Fixture(t, "anthropic-messages-final-text.sse")),
	)
	res, rec, err := step(t, newModel(t, srv, 0), request(userMsg(1, "hi")))
	if err != nil || res.Stop != harness.StopEnd {
		t.Fatalf("%+v %v", res, err)
	}
	n := rec.Notices()
	if len(n) != 2 || !strings.HasSuffix(n[0], ": overloaded") || n[1] != "retrying in 20ms: rate limited" {
		t.Errorf("notices = %q", n)
	}
	for _, r := range srv.Requests() {
		if c := r.Header.Get("X-Stainless-Retry-Count"); c != "" && c != "0" {
			t.Errorf("the SDK retried: retry count %s", c)
		}
	}
}

func TestGivesUp(t *testing.T) {
	e := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	srv := modeltest.NewServer(t, modeltest.JSONError(529, e), modeltest.JSONError(529, e), modeltest.JSONError(529, e))
	_, rec, err := step(t, newModel(t, srv, 0), request(userMsg(1, "hi")))
	if !errors.Is(err, ErrOverloaded) || !strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Fatalf("err = %v", err)
	}
	if len(rec.Notices()) != 2 {
		t.Errorf("notices = %q", rec.Notices())
	}
}

func TestAuthError(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.JSONError(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`))
	_, rec, err := step(t, newModel(t, srv, 0), request(userMsg(1, "hi")))
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "invalid x-api-key") || strings.Contains(err.Error(), "sk-ant-test") {
		t.Fatalf("err = %v", err)
	}
	if len(rec.Notices()) != 0 || len(srv.Requests()) != 1 {
		t.Error("auth error retried")
	}
}

func TestMalformed(t *testing.T) {
	start := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
	toolStart := "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":{}}}\n\n"
	frag := func(s string) string {
		return "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":" + s + "}}\n\n"
	}
	end := "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	cases := map[string]string{
		"truncated mid tool call": start + toolStart + frag(`"{\"comm"`),
		"bad json":                start + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\n\n",
		"input not json":          start + toolStart + frag(`"{\"command\": ls"`) + end,
		"delta for no block":      start + frag(`"{}"`) + end,
		"no message":              "",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Reply{Body: []byte(body), Header: map[string]string{"Content-Type": "text/event-stream"}})
			res, _, err := step(t, newModel(t, srv, 0), request(userMsg(1, "go")))
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
			if len(res.ToolCalls) != 0 {
				t.Errorf("half a tool call returned: %+v", res.ToolCalls)
			}
		})
	}
}

func TestMaxTokensDropsCutCall(t *testing.T) {
	body := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"write_file\",\"input\":{}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":100}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	srv := modeltest.NewServer(t, modeltest.SSE([]byte(body)))
	res, _, err := step(t, newModel(t, srv, 0), request(userMsg(1, "go")))
	if err != nil || res.Stop != harness.StopMaxTokens || len(res.ToolCalls) != 0 || res.Usage.OutputTokens != 100 {
		t.Fatalf("%+v %v", res, err)
	}
}

// cancelOnText cancels the step's context when the first text arrives.
type cancelOnText struct {
	modeltest.Recorder
	cancel context.CancelFunc
}

func (c *cancelOnText) Text(d string) { c.Recorder.Text(d); c.cancel() }

func TestCancelMidStream(t *testing.T) {
	evs := modeltest.Events(modeltest.Fixture(t, "anthropic-messages-final-text.sse"))
	// message_start, ping, block start, one text delta; then the server stalls.
	srv := modeltest.NewServer(t, modeltest.Reply{Chunks: evs[:4], Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := newModel(t, srv, 0).Step(ctx, request(userMsg(1, "hi")), &cancelOnText{cancel: cancel})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Step did not return after its context was cancelled")
	}
}

func TestNewSettings(t *testing.T) {
	bad := []Settings{
		{BaseURL: "api.anthropic.com"},
		{ThinkingBudget: 500},
		{ThinkingBudget: -1},
		{MaxTokens: -5},
		{MaxTokens: 2000, ThinkingBudget: 4000},
	}
	for _, s := range bad {
		if _, err := New(s); err == nil {
			t.Errorf("New(%+v) accepted bad settings", s)
		}
	}
	m, err := New(Settings{})
	if err != nil || m.s.MaxTokens != DefaultMaxTokens || m.s.BaseURL != DefaultBaseURL {
		t.Fatalf("defaults: %+v %v", m.s, err)
	}
	if _, _, err := step(t, m, request(userMsg(1, "hi"))); err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("step without a model: %v", err)
	}
	// A base URL given with /v1, as OpenAI-style configs do, still works.
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "anthropic-messages-final-text.sse")))
	m, err = New(Settings{BaseURL: srv.URL + "/v1/", Model: "x", Retry: fastRetry})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := step(t, m, request(userMsg(1, "hi"))); err != nil || srv.Requests()[0].Path != "/v1/messages" {
		t.Errorf("err %v path %s", err, srv.Requests()[0].Path)
	}
}
