package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Call is what the fake Messages API saw in one request: the text of
// the latest user message (the CLI's system reminders left out), the tool
// results in it, and any system messages after it (how Claude Code passes
// a steer taken mid-turn).
type Call struct {
	Text        string
	ToolResults []ToolResult
	System      []string
	Messages    int
	Raw         map[string]any
}

// ToolResult is one tool_result block of a request's latest user message:
// the tool call it answers, its text, and whether it reports an error.
type ToolResult struct {
	ID      string
	Content string
	IsError bool
}

// Block is one scripted reply block: text, or a tool call.
type Block struct {
	Text     string
	ToolName string
	Input    map[string]any
	// Pace spreads a text block over many small deltas, this far apart.
	Pace time.Duration
}

// Server is a scripted Anthropic Messages API on 127.0.0.1: reply
// decides each answer from what the request holds (the CLI sends side
// requests too, so order alone would be fragile). Answers stream as SSE
// with event lines, as the real API does.
type Server struct {
	*httptest.Server
	reply func(c Call) []Block

	mu    sync.Mutex
	calls []Call
	n     int
	// key, when set, is the only x-api-key accepted: any other gets the
	// API's 401 authentication_error.
	key string
}

// RequireKey makes the API refuse every request without key.
func (f *Server) RequireKey(key string) {
	f.mu.Lock()
	f.key = key
	f.mu.Unlock()
}

// New starts the API on 127.0.0.1 (its URL is the CLI's base URL) and
// closes it when the test ends; reply scripts every answer.
func New(t testing.TB, reply func(c Call) []Block) *Server {
	f := &Server{reply: reply}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Calls returns every request the API answered so far, in order.
func (f *Server) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.Contains(r.URL.Path, "count_tokens") {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, 400)
		return
	}
	f.mu.Lock()
	key := f.key
	f.mu.Unlock()
	if key != "" && r.Header.Get("x-api-key") != key {
		w.Header().Set("Content-Type", "application/json")
		http.Error(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, http.StatusUnauthorized)
		return
	}
	c := parseCall(req)
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.n++
	n := f.n
	f.mu.Unlock()
	blocks := f.reply(c)
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(ev string, data any) bool {
		b, _ := json.Marshal(data)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev, b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	id := fmt.Sprintf("msg_fake_%d", n)
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant",
		"model": req["model"], "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}})
	stop := "end_turn"
	for i, b := range blocks {
		if b.ToolName != "" {
			stop = "tool_use"
			in, _ := json.Marshal(b.Input)
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake_%d_%d", n, i), "name": b.ToolName, "input": map[string]any{}}})
			half := len(in) / 2
			for _, part := range []string{"", string(in[:half]), string(in[half:])} {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		} else {
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			parts := []string{b.Text}
			if b.Pace > 0 {
				parts = strings.SplitAfter(b.Text, " ")
			}
			for _, p := range parts {
				if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": p}}) {
					return
				}
				if b.Pace > 0 {
					select {
					case <-r.Context().Done():
						return
					case <-time.After(b.Pace):
					}
				}
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

func parseCall(req map[string]any) Call {
	c := Call{Raw: req}
	msgs, _ := req["messages"].([]any)
	c.Messages = len(msgs)
	last := -1
	for i, m := range msgs {
		if mm, _ := m.(map[string]any); mm["role"] == "user" {
			last = i
		}
	}
	if last < 0 {
		return c
	}
	for _, m := range msgs[last+1:] {
		if mm, _ := m.(map[string]any); mm["role"] == "system" {
			c.System = append(c.System, fmt.Sprint(mm["content"]))
		}
	}
	switch content := msgs[last].(map[string]any)["content"].(type) {
	case string:
		c.Text = content
	case []any:
		var texts []string
		for _, b := range content {
			bm, _ := b.(map[string]any)
			switch bm["type"] {
			case "text":
				if s, _ := bm["text"].(string); !strings.HasPrefix(s, "<system-reminder>") && !strings.HasPrefix(s, "[Request interrupted") {
					texts = append(texts, s)
				}
			case "tool_result":
				tr := ToolResult{ID: fmt.Sprint(bm["tool_use_id"])}
				tr.IsError, _ = bm["is_error"].(bool)
				switch x := bm["content"].(type) {
				case string:
					tr.Content = x
				case []any:
					for _, p := range x {
						if pm, _ := p.(map[string]any); pm["type"] == "text" {
							tr.Content += fmt.Sprint(pm["text"])
						}
					}
				}
				c.ToolResults = append(c.ToolResults, tr)
			}
		}
		c.Text = strings.Join(texts, "\n")
	}
	return c
}
