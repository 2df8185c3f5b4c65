package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/terminal"
)

// fakeProc is a fake process (agenttest.Proc) played by a Go script as
// the CLI: it reads what the adapter writes, a JSON line at a time, and
// writes stdout lines.
type fakeProc struct {
	*agenttest.Proc
	in chan map[string]any // what the adapter wrote, buffered like a pipe
}

func newFakeProc() *fakeProc {
	f := &fakeProc{Proc: agenttest.NewProc(), in: make(chan map[string]any, 1024)}
	go func() {
		defer close(f.in)
		sc := bufio.NewScanner(f.InR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"type": "not json: " + sc.Text()}
			}
			f.in <- m
		}
	}()
	return f
}

// read returns the next line the adapter wrote, or nil at end of input.
func (f *fakeProc) read() map[string]any {
	return <-f.in
}

// send writes one stdout line; false once the process is gone.
func (f *fakeProc) send(v any) bool {
	var b []byte
	switch x := v.(type) {
	case string:
		b = []byte(x)
	case []byte:
		b = x
	case json.RawMessage:
		b = x
	default:
		b, _ = json.Marshal(x)
	}
	_, err := f.OutW.Write(append(b, '\n'))
	return err == nil
}

// replay echoes a user line the adapter wrote, as --replay-user-messages does.
func (f *fakeProc) replay(m map[string]any) {
	f.send(map[string]any{"type": "user", "message": m["message"], "session_id": "s", "parent_tool_use_id": nil, "isReplay": true})
}

// answerInit answers an initialize request.
func (f *fakeProc) answerInit(m map[string]any) {
	f.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": m["request_id"], "response": map[string]any{"commands": []any{}}}})
}

func kindOf(m map[string]any) string {
	if m == nil {
		return "eof"
	}
	t, _ := m["type"].(string)
	if t == "control_request" {
		r, _ := m["request"].(map[string]any)
		s, _ := r["subtype"].(string)
		return t + "/" + s
	}
	return t
}

// scriptHost returns a host whose every Spawn starts a fake process run by
// script in its own goroutine.
func scriptHost(t testing.TB, script func(f *fakeProc)) *agenttest.Host {
	t.Helper()
	var wg sync.WaitGroup
	var fakes []*fakeProc
	var mu sync.Mutex
	h := &agenttest.Host{Dir: "/home/dev/project"}
	h.Fake = func(argv, env []string) (terminal.Process, error) {
		f := newFakeProc()
		mu.Lock()
		fakes = append(fakes, f)
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("fake CLI: %v", r)
				}
			}()
			script(f)
		}()
		return f, nil
	}
	t.Cleanup(func() {
		mu.Lock()
		for _, f := range fakes {
			f.Exit(0)
		}
		mu.Unlock()
		wg.Wait()
	})
	return h
}

// entry is one line of a recorded control-protocol transcript.
type entry struct {
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

func loadTranscript(t *testing.T, name string) []entry {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var e entry
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, e)
	}
	return out
}

// loadLines reads an output-only stream-json fixture.
func loadLines(t *testing.T, name string) [][]byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSpace(b), []byte("\n"))
}

// playTranscript plays a recorded transcript as the CLI: "out" lines are
// printed (request ids of ours substituted), each "in" line waits for the
// adapter to write a line of the same kind, which check may inspect, and
// "exit" waits for end of input. User lines are echoed back as taken.
func playTranscript(t *testing.T, f *fakeProc, entries []entry, check func(want, got map[string]any)) {
	ids := map[string]any{}
	for _, e := range entries {
		switch e.Dir {
		case "in":
			var want map[string]any
			_ = json.Unmarshal(e.Msg, &want)
			got := f.read()
			if kindOf(got) != kindOf(want) {
				t.Errorf("adapter wrote %s, the recording has %s here", kindOf(got), kindOf(want))
				f.Exit(1)
				return
			}
			if id, ok := want["request_id"].(string); ok {
				ids[id] = got["request_id"]
			}
			if kindOf(got) == "user" {
				f.replay(got)
			}
			if check != nil {
				check(want, got)
			}
		case "out":
			msg := e.Msg
			if strings.Contains(string(msg), `"control_response"`) {
				var m map[string]any
				_ = json.Unmarshal(msg, &m)
				r := m["response"].(map[string]any)
				if id, ok := ids[r["request_id"].(string)]; ok {
					r["request_id"] = id
					msg, _ = json.Marshal(m)
				}
			}
			if !f.send(msg) {
				return
			}
		case "exit":
			var x struct {
				Returncode int `json:"returncode"`
			}
			_ = json.Unmarshal(e.Msg, &x)
			for f.read() != nil {
			}
			f.Exit(x.Returncode)
			return
		}
	}
}

// playOutput is a CLI that answers initialize, then for each user line
// echoes it and prints the next stream of recorded lines.
func playOutput(streams ...[][]byte) func(f *fakeProc) {
	return func(f *fakeProc) {
		for {
			m := f.read()
			switch kindOf(m) {
			case "eof":
				f.Exit(0)
				return
			case "control_request/initialize":
				f.answerInit(m)
			case "user":
				f.replay(m)
				if len(streams) == 0 {
					f.Exit(1)
					return
				}
				for _, l := range streams[0] {
					f.send(l)
				}
				streams = streams[1:]
			}
		}
	}
}

// within runs fn and fails the test if it takes longer than d (a hang,
// not a speed target).
func within[T any](t *testing.T, d time.Duration, fn func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- fn() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
		panic("unreachable")
	}
}

// closeSession ends a session's process; an error fails the test.
func closeSession(t testing.TB, a *Agent, id string) {
	t.Helper()
	if err := a.CloseSession(id); err != nil {
		t.Errorf("close session %s: %v", id, err)
	}
}

// mustClose closes c (an environment, an engine); an error fails the test.
func mustClose(t testing.TB, c io.Closer) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// put writes b as the fake CLI would. A failure means the adapter stopped
// reading, which each test checks through what the adapter did instead.
func put(w io.Writer, b []byte) { _, _ = w.Write(b) }
