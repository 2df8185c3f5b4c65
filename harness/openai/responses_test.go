package openai

import (
	"errors"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

func TestResponsesReasoningTextAndCall(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "openai-responses.sse")))
	res, rec, err := step(t, newModel(t, srv, Responses), request(userMsg(1, "list")))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Joined("reasoning"); got != "**Listing files**\n\nI'll list the workspace first." {
		t.Errorf("reasoning = %q", got)
	}
	if got := rec.Joined("text"); got != "Listing the workspace." {
		t.Errorf("text = %q", got)
	}
	if res.Stop != harness.StopToolUse || len(res.ToolCalls) != 1 {
		t.Fatalf("result = %+v", res)
	}
	c := res.ToolCalls[0]
	if c.ID != "call_5eed00000000000000000000" || c.Name != "exec_command" || string(c.Input) != `{"cmd": "ls -1"}` {
		t.Errorf("call = %s %s %s", c.ID, c.Name, c.Input)
	}
	if in, _ := rec.ToolInputs(); in[c.ID] != string(c.Input) {
		t.Errorf("streamed input = %q", in[c.ID])
	}
	if res.Usage != (sessions.Usage{InputTokens: 2480, OutputTokens: 96}) {
		t.Errorf("usage = %+v", res.Usage)
	}
}

func TestResponsesFinalText(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "openai-responses-final-text.sse")))
	res, rec, err := step(t, newModel(t, srv, Responses), request(userMsg(1, "done?")))
	if err != nil || res.Stop != harness.StopEnd || len(res.ToolCalls) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if rec.Joined("text") != "I listed the files and created `hello.txt`." {
		t.Errorf("text = %q", rec.Joined("text"))
	}
}

func TestResponsesIgnoresToolsNotOffered(t *testing.T) {
	// A custom (freeform) tool call: this harness offers only function tools,
	// so the call is not one the engine could run.
	srv := modeltest.NewServer(t, modeltest.SSE(modeltest.Fixture(t, "openai-responses-custom-tool-apply-patch.sse")))
	res, rec, err := step(t, newModel(t, srv, Responses), request(userMsg(1, "patch")))
	if err != nil || res.Stop != harness.StopEnd || len(res.ToolCalls) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if _, order := rec.ToolInputs(); len(order) != 0 {
		t.Errorf("tool calls started: %v", order)
	}
}

const respPrefix = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"status\":\"in_progress\",\"output\":[]}}\n\n"

func TestResponsesFailures(t *testing.T) {
	callAdded := "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"exec\",\"arguments\":\"\"}}\n\n" +
		"event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"{\\\"comm\"}\n\n"
	cases := []struct {
		name string
		body string
		want error
	}{
		{"truncated", respPrefix + callAdded, ErrMalformed},
		{"bad json", respPrefix + "event: response.output_text.delta\ndata: {\"type\":\n\n", ErrMalformed},
		{"auth error event", respPrefix + "event: error\ndata: {\"type\":\"error\",\"code\":\"invalid_api_key\",\"message\":\"bad key\"}\n\n", ErrAuth},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.SSE([]byte(c.body)))
			res, _, err := step(t, newModel(t, srv, Responses), request(userMsg(1, "go")))
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if len(res.ToolCalls) != 0 {
				t.Errorf("tool calls = %+v", res.ToolCalls)
			}
		})
	}
}

func TestResponsesFailedIsRetried(t *testing.T) {
	failed := respPrefix + "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"id\":\"r\",\"status\":\"failed\",\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"Slow down\"}}}\n\n"
	srv := modeltest.NewServer(t, modeltest.SSE([]byte(failed)), modeltest.SSE(modeltest.Fixture(t, "openai-responses-final-text.sse")))
	res, rec, err := step(t, newModel(t, srv, Responses), request(userMsg(1, "go")))
	if err != nil || res.Stop != harness.StopEnd {
		t.Fatalf("%+v %v", res, err)
	}
	if n := rec.Notices(); len(n) != 1 || !strings.HasSuffix(n[0], ": rate limited") {
		t.Errorf("notices = %q", n)
	}
}

func TestResponsesIncomplete(t *testing.T) {
	body := respPrefix + "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"Long\"}\n\n" +
		"event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"response\":{\"id\":\"r\",\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"usage\":{\"input_tokens\":10,\"output_tokens\":64}}}\n\n"
	srv := modeltest.NewServer(t, modeltest.SSE([]byte(body)))
	m := newModel(t, srv, Responses)
	m.s.MaxTokens = 64
	m.s.ReasoningEffort = "low"
	res, _, err := step(t, m, request(userMsg(1, "go")))
	if err != nil || res.Stop != harness.StopMaxTokens || res.Usage.OutputTokens != 64 {
		t.Fatalf("%+v %v", res, err)
	}
	body2 := srv.Requests()[0].JSON(t)
	if body2["max_output_tokens"] != float64(64) || get(t, body2, "reasoning", "effort") != "low" || get(t, body2, "reasoning", "summary") != "auto" {
		t.Errorf("request = %v %v", body2["max_output_tokens"], body2["reasoning"])
	}
}
