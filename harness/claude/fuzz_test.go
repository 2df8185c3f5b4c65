package claude

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
)

// FuzzDecoder feeds arbitrary output through the line decoder and the
// transcript decoder: nothing panics, a result only ever goes to a tool
// call that was opened, and closing the turn leaves no call open. The
// seeds are the recorded streams, whole and cut at random points.
func FuzzDecoder(f *testing.F) {
	files, _ := filepath.Glob("testdata/claude-code-stream-json*.jsonl")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(b[:len(b)/3])
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x"}]}}`))
	f.Add([]byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":7,"delta":{"type":"input_json_delta","partial_json":"{"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec := &modeltest.Recorder{}
		d := newDecoder(rec)
		for _, b := range bytes.Split(data, []byte("\n")) {
			l, err := decodeLine(b)
			if err != nil {
				continue
			}
			_ = d.handle(l)
		}
		d.closeOpen("end")
		open := map[string]bool{}
		for _, e := range rec.Events() {
			switch e.Kind {
			case "tool_start":
				if open[e.ID] {
					t.Fatalf("tool %s started twice", e.ID)
				}
				open[e.ID] = true
			case "tool_input":
				if !open[e.ID] {
					t.Fatalf("input for tool %s that is not open", e.ID)
				}
			case "tool_result":
				if !open[e.ID] {
					t.Fatalf("result for tool %s that is not open", e.ID)
				}
				delete(open, e.ID)
			}
		}
		if len(open) > 0 {
			t.Fatalf("tools left open: %v", open)
		}
	})
}

// FuzzTurn plays arbitrary output as the CLI's after a correct start: the
// turn always ends (with a result or an error), promptly, with every tool
// call it opened closed.
func FuzzTurn(f *testing.F) {
	for _, name := range []string{"claude-code-stream-json.jsonl", "claude-code-stream-json-api-error-529.jsonl"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)*2/3])
	}
	f.Add([]byte("garbage\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := scriptHost(t, func(fp *fakeProc) {
			fp.answerInit(expect(fp, "control_request/initialize"))
			fp.replay(expect(fp, "user"))
			put(fp.OutW, data)
			fp.Exit(1) // whatever it printed, it is gone now
		})
		a := newTestAgent(t, Settings{InterruptTimeout: time.Second, CloseTimeout: 10 * time.Millisecond})
		rec := &modeltest.Recorder{}
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = a.Turn(context.Background(), harness.TurnRequest{SessionID: "s", Input: "go"}, rec, h)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("turn did not end")
		}
		closeSession(t, a, "s")
		assertNoDangling(t, rec)
	})
}
