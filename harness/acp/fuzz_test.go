package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/atelier-studio/atelier/harness/modeltest"
)

// FuzzStream feeds arbitrary agent output through the line filter and
// every session/update it lets through to the transcript view: nothing may
// panic, the filter passes only JSON-RPC objects and ends with a protocol
// error or the end of input, and no tool part is left open.
func FuzzStream(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Write","kind":"edit","status":"pending","rawInput":{"file_path":"/w/a"},"content":[{"type":"diff","path":"/w/a","oldText":"a\nb\n","newText":"a\nc\n"}]}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","content":[{"type":"terminal","terminalId":"term-1"}]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t2"},"options":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
		"Traceback (most recent call last):",
		`{"id":`,
	} {
		f.Add([]byte(s + "\n"))
		f.Add([]byte(s[:len(s)/2]))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fl := newLineFilter(bytes.NewReader(data))
		passed, _ := io.ReadAll(fl.Reader())
		if err := fl.Err(); err != nil && !errors.Is(err, ErrProtocol) {
			t.Fatalf("error %v is not a protocol error", err)
		}
		v := newView(&modeltest.Recorder{}, func(string) string { return "out" })
		for _, line := range bytes.Split(passed, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			if err := checkLine(line); err != nil {
				t.Fatalf("the filter passed %q: %v", line, err)
			}
			var m struct {
				Params acpsdk.SessionNotification `json:"params"`
			}
			if json.Unmarshal(line, &m) == nil {
				v.update(m.Params.Update)
				v.approval(acpsdk.ToolCallUpdate{ToolCallId: "t9"})
			}
		}
		v.closeOpen("end", "interrupted")
		for id, tl := range v.tools {
			if !tl.done || !tl.started {
				t.Fatalf("tool %s left open", id)
			}
		}
	})
}
