package codex

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

// fakeResponses is a scripted OpenAI Responses server on loopback: the n-th
// POST .../responses gets the n-th reply; a request beyond the script gets
// a plain "done." so a chatty CLI cannot hang a test, and is counted.
type fakeResponses struct {
	*httptest.Server
	mu      sync.Mutex
	replies [][]byte
	bodies  []string
	headers []http.Header // of the Responses requests, in order
	other   []string      // requests to other paths
	// auth, when set, is the only Authorization header accepted: any
	// other gets a 401, as the real API answers a missing or bad key.
	auth string
}

// requireAuth makes the server refuse every request without the header
// value auth.
func (f *fakeResponses) requireAuth(auth string) {
	f.mu.Lock()
	f.auth = auth
	f.mu.Unlock()
}

func newFakeResponses(t *testing.T, replies ...[]byte) *fakeResponses {
	t.Helper()
	f := &fakeResponses{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeResponses) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		f.mu.Lock()
		f.other = append(f.other, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	if f.auth != "" && r.Header.Get("Authorization") != f.auth {
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		http.Error(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, http.StatusUnauthorized)
		return
	}
	n := len(f.bodies)
	f.bodies = append(f.bodies, string(body))
	f.headers = append(f.headers, r.Header.Clone())
	reply := sseText(fmt.Sprintf("msg_extra%d", n), "done.")
	if n < len(f.replies) {
		reply = f.replies[n]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	for _, ev := range bytes.SplitAfter(reply, []byte("\n\n")) {
		if len(ev) == 0 {
			continue
		}
		if _, err := w.Write(ev); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

// Bodies returns the bodies of the Responses requests so far.
func (f *fakeResponses) Bodies() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// Headers returns the headers of the Responses requests so far.
func (f *fakeResponses) Headers() []http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]http.Header(nil), f.headers...)
}

// sse writes events in the Responses wire format, numbering them.
func sse(events ...map[string]any) []byte {
	var b bytes.Buffer
	for i, ev := range events {
		ev["sequence_number"] = i
		data, _ := json.Marshal(ev)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", ev["type"], data)
	}
	return b.Bytes()
}

func response(id, status string, output []any) map[string]any {
	r := map[string]any{"id": id, "object": "response", "created_at": 1764390000, "status": status,
		"model": "gpt-5.5", "output": output, "usage": nil, "error": nil}
	if status == "completed" {
		r["usage"] = map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 7, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 107}
	}
	return r
}

// sseText is a response whose output is one assistant message.
func sseText(id, text string) []byte {
	rid := "resp_" + id
	done := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	return sse(
		map[string]any{"type": "response.created", "response": response(rid, "in_progress", []any{})},
		map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}},
		map[string]any{"type": "response.content_part.added", "item_id": id, "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}},
		map[string]any{"type": "response.output_text.delta", "item_id": id, "output_index": 0, "content_index": 0, "delta": text},
		map[string]any{"type": "response.output_text.done", "item_id": id, "output_index": 0, "content_index": 0, "text": text},
		map[string]any{"type": "response.content_part.done", "item_id": id, "output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": text, "annotations": []any{}}},
		map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done},
		map[string]any{"type": "response.completed", "response": response(rid, "completed", []any{done})},
	)
}

// sseCall is a response whose output is one function call.
func sseCall(callID, name, args string) []byte {
	id := "fc_" + callID
	rid := "resp_" + callID
	done := map[string]any{"id": id, "type": "function_call", "status": "completed", "arguments": args, "call_id": callID, "name": name}
	return sse(
		map[string]any{"type": "response.created", "response": response(rid, "in_progress", []any{})},
		map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": callID, "name": name}},
		map[string]any{"type": "response.function_call_arguments.delta", "item_id": id, "output_index": 0, "delta": args},
		map[string]any{"type": "response.function_call_arguments.done", "item_id": id, "output_index": 0, "arguments": args},
		map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done},
		map[string]any{"type": "response.completed", "response": response(rid, "completed", []any{done})},
	)
}

// execCall asks Codex to run a shell command.
func execCall(callID, cmd string) []byte {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return sseCall(callID, "exec_command", string(args))
}
