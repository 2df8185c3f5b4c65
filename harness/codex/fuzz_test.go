package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/agenttest"
)

// cliLines returns what the CLI wrote in a recorded transcript.
func cliLines(t testing.TB, name string) [][]byte {
	var out [][]byte
	for _, e := range loadTranscript(t, name) {
		if e.Dir == "out" {
			out = append(out, e.Msg)
		}
	}
	return out
}

// FuzzStream feeds arbitrary bytes to the connection and each line that
// decodes to the turn translator: nothing may panic or hang, the
// connection must end with an error, and a translator error is always a
// protocol error.
func FuzzStream(f *testing.F) {
	for _, name := range []string{"codex-app-server.jsonl", "codex-app-server-decline.jsonl", "codex-app-server-interrupt.jsonl"} {
		lines := cliLines(f, name)
		f.Add(bytes.Join(lines, []byte("\n")))
		for _, l := range lines {
			f.Add(l)
			f.Add(l[:len(l)/2])
		}
	}
	f.Add([]byte("not json\n"))
	f.Add([]byte(`{"id":1}` + "\n"))
	f.Add([]byte(`{"method":"item/started","params":{"item":{"type":"fileChange","id":"x","changes":[{"path":"a","kind":{"type":"add"},"diff":"x\n"}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newConn(bytes.NewReader(data), io.Discard)
		ts := newTurnState(&modeltest.Recorder{}, fixtureThread, "/home/dev/project")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for {
			m, err := c.next(ctx)
			if err != nil {
				if ctx.Err() != nil {
					t.Fatal("the connection did not end")
				}
				break
			}
			if m.isRequest() {
				continue
			}
			if err := ts.notification(m); err != nil && !errors.Is(err, ErrProtocol) {
				t.Fatalf("error %v is not a protocol error", err)
			}
		}
		ts.closeOpen("end", "interrupted")
		if len(ts.open) != 0 {
			t.Fatal("tool parts left open")
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if m, err := decodeMessage(line); err == nil {
				if m.Method == "" && len(m.ID) == 0 {
					t.Fatalf("accepted %q", line)
				}
			} else if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error %v is not a protocol error", err)
			}
		}
	})
}

// scriptedCLI runs a turn against a fake CLI that answers the handshake and
// turn/start, then does what then says on its stdout and stderr.
func scriptedCLI(t *testing.T, then func(f *agenttest.Proc)) (*modeltest.Recorder, error) {
	t.Helper()
	f := agenttest.NewProc()
	go func() {
		dec := json.NewDecoder(f.InR)
		for {
			var m message
			if err := dec.Decode(&m); err != nil {
				return
			}
			var res string
			switch m.Method {
			case "initialize":
				res = `{"userAgent":"fake"}`
			case "thread/start":
				res = `{"thread":{"id":"th1"}}`
			case "turn/start":
				res = `{"turn":{"id":"tu1","status":"inProgress"}}`
			default:
				continue
			}
			b, _ := json.Marshal(message{ID: m.ID, Result: json.RawMessage(res)})
			put(f.OutW, append(b, '\n'))
			if m.Method == "turn/start" {
				then(f)
				_, _ = io.Copy(io.Discard, f.InR) // until the adapter closes stdin
				f.Exit(0)
				return
			}
		}
	}()
	h := &agenttest.Host{Dir: "/w", Fake: agenttest.FakeOnly(f)}
	a := New(Settings{})
	defer closeSession(t, a, "s")
	rec := &modeltest.Recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := a.Turn(ctx, harness.TurnRequest{SessionID: "s", Input: "hi"}, rec, h)
	return rec, err
}

// TestCLIDiesMidTurn: the CLI's end mid-turn fails the turn with its exit
// code and stderr tail, and the open exec part gets an error result.
func TestCLIDiesMidTurn(t *testing.T) {
	rec, err := scriptedCLI(t, func(f *agenttest.Proc) {
		put(f.OutW, []byte(`{"method":"item/started","params":{"threadId":"th1","turnId":"tu1","item":{"type":"commandExecution","id":"c1","command":"make","status":"inProgress"}}}`+"\n"))
		put(f.ErrW, []byte("panic: the model server went away\n"))
		time.Sleep(50 * time.Millisecond)
		f.Exit(101)
	})
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exit code 101") || !strings.Contains(err.Error(), "the model server went away") {
		t.Fatalf("err %v", err)
	}
	tools, _ := toolsOf(rec)
	if tools["c1"] == nil || tools["c1"].state != "error" {
		t.Fatalf("tools %+v", tools)
	}
}

// TestMalformedLine: a line that is not JSON-RPC fails the turn with
// ErrProtocol and shows the line.
func TestMalformedLine(t *testing.T) {
	_, err := scriptedCLI(t, func(f *agenttest.Proc) {
		put(f.OutW, []byte("Segmentation fault (core dumped)\n"))
	})
	if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "Segmentation fault") {
		t.Fatalf("err %v", err)
	}
}

// TestFailedTurn: turn/completed with status failed fails the turn with
// Codex's message.
func TestFailedTurn(t *testing.T) {
	_, err := scriptedCLI(t, func(f *agenttest.Proc) {
		put(f.OutW, []byte(`{"method":"error","params":{"threadId":"th1","turnId":"tu1","willRetry":true,"error":{"message":"Reconnecting... 1/5"}}}`+"\n"))
		put(f.OutW, []byte(`{"method":"turn/completed","params":{"threadId":"th1","turn":{"id":"tu1","status":"failed","error":{"message":"stream disconnected before completion: bad"}}}}`+"\n"))
	})
	if !errors.Is(err, ErrTurnFailed) || !strings.Contains(err.Error(), "stream disconnected") {
		t.Fatalf("err %v", err)
	}
}
