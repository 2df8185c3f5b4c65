package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/agenttest"
)

func allow(context.Context, harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
	return harness.ApprovalAnswer{Allowed: true}, nil
}

func deny(context.Context, harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
	return harness.ApprovalAnswer{Message: "not now"}, nil
}

// block waits for the turn to be cancelled, as an operator who never answers.
func block(ctx context.Context, _ harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
	<-ctx.Done()
	return harness.ApprovalAnswer{}, ctx.Err()
}

// entry is one line of a recorded app-server transcript: "in" is what the
// client wrote, "out" what the CLI wrote, "exit" its end.
type entry struct {
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

func loadTranscript(t testing.TB, name string) []entry {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, e)
	}
	return out
}

// replayer plays the CLI's side of a recorded transcript on a fakeProc:
// it waits for each request the client wrote in the recording (by method),
// maps the recorded ids to the ones the adapter used, and writes the CLI's
// lines with the ids mapped back. The answers the adapter gave to the
// CLI's requests are kept for the test to check.
type replayer struct {
	f          *agenttest.Proc
	script     []entry
	onInterupt func()        // called when the recording's client interrupts
	finished   chan struct{} // closed when run returns

	mu      sync.Mutex
	errs    []string
	answers map[string]json.RawMessage // the adapter's answers, by the CLI's request id
	methods []string                   // what the adapter sent, in order
}

func replay(f *agenttest.Proc, script []entry, onInterrupt func()) *replayer {
	r := &replayer{f: f, script: script, onInterupt: onInterrupt, finished: make(chan struct{}), answers: map[string]json.RawMessage{}}
	go r.run()
	return r
}

func (r *replayer) fail(format string, args ...any) {
	r.mu.Lock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *replayer) run() {
	defer close(r.finished)
	in := bufio.NewScanner(r.f.InR)
	in.Buffer(nil, 1<<20)
	ids := map[string]json.RawMessage{}
	// readUntil reads the adapter's lines until one satisfies want, keeping
	// the answers met on the way.
	readUntil := func(want func(message) bool) (message, bool) {
		for in.Scan() {
			var m message
			if err := json.Unmarshal(in.Bytes(), &m); err != nil {
				r.fail("adapter wrote a bad line: %q", in.Text())
				return message{}, false
			}
			r.mu.Lock()
			if m.Method != "" {
				r.methods = append(r.methods, m.Method)
			} else {
				k, _ := idKey(m.ID)
				b, _ := json.Marshal(m.Result)
				r.answers[k] = b
			}
			r.mu.Unlock()
			if want(m) {
				return m, true
			}
		}
		return message{}, false
	}
	for _, e := range r.script {
		var rec message
		_ = json.Unmarshal(e.Msg, &rec)
		switch e.Dir {
		case "in":
			if rec.Method == "turn/interrupt" && r.onInterupt != nil {
				r.onInterupt()
			}
			if rec.Method == "" {
				k, _ := idKey(rec.ID)
				if _, ok := readUntil(func(m message) bool { x, _ := idKey(m.ID); return m.Method == "" && x == k }); !ok {
					r.fail("no answer to request %s", k)
					return
				}
				continue
			}
			got, ok := readUntil(func(m message) bool { return m.Method != "" })
			if !ok {
				r.fail("adapter stopped before %s", rec.Method)
				return
			}
			if got.Method != rec.Method {
				r.fail("adapter sent %s, the recording has %s", got.Method, rec.Method)
				return
			}
			if len(rec.ID) > 0 {
				k, _ := idKey(rec.ID)
				ids[k] = got.ID
			}
		case "out":
			if rec.Method == "" && len(rec.ID) > 0 {
				k, _ := idKey(rec.ID)
				var m map[string]json.RawMessage
				_ = json.Unmarshal(e.Msg, &m)
				m["id"] = ids[k]
				b, _ := json.Marshal(m)
				e.Msg = b
			}
			if _, err := r.f.OutW.Write(append(append([]byte(nil), e.Msg...), '\n')); err != nil {
				return
			}
		case "exit":
			// The recording's client closed stdin; wait for ours to,
			// keeping the answers it writes meanwhile (a pending approval
			// answered when its turn was cancelled may come last).
			readUntil(func(message) bool { return false })
			r.f.Exit(0)
			return
		}
	}
}

// check reports what went wrong in the replay, once the replayer is done
// (the fake process has ended, so it cannot wait long): a failure it
// records as it stops must not be missed.
func (r *replayer) check(t *testing.T) {
	t.Helper()
	select {
	case <-r.finished:
	case <-time.After(5 * time.Second):
		t.Error("replay: the replayer did not finish")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.errs {
		t.Error("replay: " + e)
	}
}

func (r *replayer) decision(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var a approvalResponse
	_ = json.Unmarshal(r.answers[id], &a)
	return a.Decision
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
