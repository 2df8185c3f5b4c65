package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeAnthropic is a fake Anthropic Messages server on loopback for the
// Claude Code that an ACP adapter runs. reply decides each answer from the
// request: the main conversation (it offers tools) gets the script's
// turns; Claude Code's side requests (titles, probes) get a short text.
type fakeAnthropic struct {
	*httptest.Server
	reply func(req anthropicRequest) anthropicReply

	mu   sync.Mutex
	reqs []anthropicRequest
}

type anthropicRequest struct {
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	raw string
}

// toolResult returns the content of the tool_result for id, if the
// request carries one.
func (r anthropicRequest) toolResult(id string) (string, bool) {
	for _, m := range r.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return string(b.Content), true
			}
		}
	}
	return "", false
}

// anthropicReply is one assistant message: text, or one tool call.
type anthropicReply struct {
	Text      string
	ToolID    string
	ToolName  string
	ToolInput any
}

func newFakeAnthropic(t *testing.T, reply func(anthropicRequest) anthropicReply) *fakeAnthropic {
	f := &fakeAnthropic{reply: reply}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAnthropic) requests() []anthropicRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]anthropicRequest(nil), f.reqs...)
}

func (f *fakeAnthropic) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	req.raw = string(body)
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	rep := anthropicReply{Text: "ok"}
	if len(req.Tools) > 0 {
		rep = f.reply(req)
	}
	var block map[string]any
	stop := "end_turn"
	if rep.ToolID != "" {
		block = map[string]any{"type": "tool_use", "id": rep.ToolID, "name": rep.ToolName, "input": rep.ToolInput}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": rep.Text}
	}
	msg := map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 20, "output_tokens": 1}}
	if !req.Stream {
		msg["content"] = []any{block}
		msg["stop_reason"] = stop
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	var b bytes.Buffer
	ev := func(name string, data map[string]any) {
		data["type"] = name
		j, _ := json.Marshal(data)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, j)
	}
	ev("message_start", map[string]any{"message": msg})
	if rep.ToolID != "" {
		in, _ := json.Marshal(rep.ToolInput)
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": rep.ToolID, "name": rep.ToolName, "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
	} else {
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": rep.Text}})
	}
	ev("content_block_stop", map[string]any{"index": 0})
	ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 9}})
	ev("message_stop", map[string]any{})
	_, _ = w.Write(b.Bytes())
}
