package claude

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/sessions"
)

type turnOut struct {
	res harness.TurnResult
	err error
}

func newTestAgent(t *testing.T, set Settings) *Agent {
	t.Helper()
	a, err := New(set)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func runTurn(t *testing.T, a *Agent, ctx context.Context, req harness.TurnRequest, rec harness.Emitter, h harness.Host) turnOut {
	t.Helper()
	return within(t, 30*time.Second, func() turnOut {
		res, err := a.Turn(ctx, req, rec, h)
		return turnOut{res, err}
	})
}

// toolResults returns the tool_result events by id.
func toolResults(rec *modeltest.Recorder) map[string]modeltest.Event {
	out := map[string]modeltest.Event{}
	for _, e := range rec.Events() {
		if e.Kind == "tool_result" {
			if _, dup := out[e.ID]; dup {
				panic("two results for " + e.ID)
			}
			out[e.ID] = e
		}
	}
	return out
}

// assertNoDangling checks that every tool call started has exactly one result.
func assertNoDangling(t *testing.T, rec *modeltest.Recorder) {
	t.Helper()
	res := toolResults(rec)
	_, started := rec.ToolInputs()
	for _, id := range started {
		if _, ok := res[id]; !ok {
			t.Errorf("tool call %s has no result", id)
		}
	}
}

func lastUsage(rec *modeltest.Recorder) sessions.Usage {
	var u sessions.Usage
	for _, e := range rec.Events() {
		if e.Kind == "usage" {
			u = e.Usage
		}
	}
	return u
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestReplayApprovalAllowed replays the recorded approve scenario: the
// can_use_tool request reaches the operator with the command, path and
// reason; the answer goes back as allow with the original input; text and
// tool input stream once each (the whole assistant lines that repeat them
// are not emitted again); the tool result, usage, cost and claude's session
// id come through.
func TestReplayApprovalAllowed(t *testing.T) {
	tr := loadTranscript(t, "claude-code-control-protocol.jsonl")
	h := scriptHost(t, func(f *fakeProc) {
		playTranscript(t, f, tr, func(want, got map[string]any) {
			if kindOf(want) == "control_response" {
				w := want["response"].(map[string]any)["response"]
				g := got["response"].(map[string]any)["response"]
				if !reflect.DeepEqual(w, g) {
					t.Errorf("approval answer\n got %v\nwant %v", g, w)
				}
			}
		})
	})
	a := newTestAgent(t, Settings{})
	rec := &modeltest.Recorder{}
	out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s1", Input: "RUNWRITE create a file"}, rec, h)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if got, want := rec.Joined("text"), "I'll create the file.The directory contains `README.md` and `main.go`. Done."; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	in, order := rec.ToolInputs()
	const id = "toolu_0133d168148c1741009203be"
	if len(order) != 1 || order[0] != id || in[id] != `{"command": "touch created.txt", "description": "Create created.txt"}` {
		t.Errorf("tool calls %v %q", order, in)
	}
	aps := h.Approvals()
	want := harness.ApprovalRequest{ToolCall: id, Tool: "Bash", Kind: harness.ActionExec, Command: "touch created.txt", Path: "created.txt", Reason: "Create created.txt"}
	if len(aps) != 1 || aps[0] != want {
		t.Errorf("approvals %+v", aps)
	}
	if r := toolResults(rec)[id]; r.State != sessions.ToolDone || r.Text != "(Bash completed with no output)" {
		t.Errorf("tool result %+v", r)
	}
	u := out.res.Usage
	if u.InputTokens != 6877 || u.OutputTokens != 42 || !near(u.CostUSD, 0.035434999999999994) {
		t.Errorf("usage %+v", u)
	}
	if lastUsage(rec) != u {
		t.Errorf("emitted usage %+v, result %+v", lastUsage(rec), u)
	}
	if out.res.Stop != harness.StopEnd || out.res.Resume != "55c9c761-6745-4908-89ce-854152be092d" {
		t.Errorf("result %+v", out.res)
	}
	if err := a.CloseSession("s1"); err != nil {
		t.Fatal(err)
	}
}

// TestReplayApprovalDenied: the operator's denial and message go to the
// CLI as deny, and the tool call ends denied with that message.
func TestReplayApprovalDenied(t *testing.T) {
	tr := loadTranscript(t, "claude-code-control-protocol-deny.jsonl")
	h := scriptHost(t, func(f *fakeProc) {
		playTranscript(t, f, tr, func(want, got map[string]any) {
			if kindOf(want) == "control_response" {
				w := want["response"].(map[string]any)["response"]
				g := got["response"].(map[string]any)["response"]
				if !reflect.DeepEqual(w, g) {
					t.Errorf("denial\n got %v\nwant %v", g, w)
				}
			}
		})
	})
	h.Decide = func(ctx context.Context, r harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		return harness.ApprovalAnswer{Message: "User denied: not allowed to create files"}, nil
	}
	a := newTestAgent(t, Settings{})
	rec := &modeltest.Recorder{}
	out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s1", Input: "RUNWRITE create a file"}, rec, h)
	if out.err != nil {
		t.Fatal(out.err)
	}
	r := toolResults(rec)["toolu_0185489f54535b4de7b290ae"]
	if r.State != sessions.ToolDenied || r.Text != "User denied: not allowed to create files" {
		t.Errorf("denied tool result %+v", r)
	}
	closeSession(t, a, "s1")
}

// TestReplayInterruptDuringApproval: cancelling the turn while the
// operator decides sends the interrupt request, the withdrawn approval is
// not answered, the tool call ends interrupted, and Turn returns the
// context's error once the CLI's result line came.
func TestReplayInterruptDuringApproval(t *testing.T) {
	tr := loadTranscript(t, "claude-code-control-protocol-interrupt.jsonl")
	h := scriptHost(t, func(f *fakeProc) { playTranscript(t, f, tr, nil) })
	ctx, cancel := context.WithCancel(context.Background())
	h.Decide = func(actx context.Context, r harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		cancel()
		<-actx.Done()
		return harness.ApprovalAnswer{}, actx.Err()
	}
	a := newTestAgent(t, Settings{})
	rec := &modeltest.Recorder{}
	out := runTurn(t, a, ctx, harness.TurnRequest{SessionID: "s1", Input: "RUNWRITE create a file"}, rec, h)
	if !errors.Is(out.err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", out.err)
	}
	r := toolResults(rec)["toolu_0168b89fc2d6d5477a813e88"]
	if r.State != sessions.ToolInterrupted {
		t.Errorf("tool result %+v", r)
	}
	assertNoDangling(t, rec)
	if out.res.Resume != "81ffa660-bbfa-4af5-9c59-992c95e389b2" {
		t.Errorf("resume %q", out.res.Resume)
	}
	closeSession(t, a, "s1")
}

// TestReplayMultiTurn: two turns go to the same process, the second
// streams reasoning and a tool round trip, and each turn's cost is its own
// (the CLI reports a running total per process).
func TestReplayMultiTurn(t *testing.T) {
	tr := loadTranscript(t, "claude-code-control-protocol-multiturn.jsonl")
	h := scriptHost(t, func(f *fakeProc) { playTranscript(t, f, tr, nil) })
	a := newTestAgent(t, Settings{})
	rec1 := &modeltest.Recorder{}
	out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s1", Input: "say hello"}, rec1, h)
	if out.err != nil || rec1.Joined("text") != "Hello! How can I help you today?" {
		t.Fatalf("turn 1: %v %q", out.err, rec1.Joined("text"))
	}
	if !near(out.res.Usage.CostUSD, 0.01739) {
		t.Errorf("turn 1 cost %v", out.res.Usage.CostUSD)
	}
	rec2 := &modeltest.Recorder{}
	out = runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s1", Turn: 1, Input: "RUNTOOL list the files", Resume: out.res.Resume}, rec2, h)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if len(h.Spawns()) != 1 {
		t.Errorf("%d processes for two turns", len(h.Spawns()))
	}
	if got := rec2.Joined("reasoning"); got != "The user wants a directory listing. I'll run ls." {
		t.Errorf("reasoning %q", got)
	}
	if r := toolResults(rec2)["toolu_015854ef2086e84c06abb95d"]; r.State != sessions.ToolDone || r.Text != "README.md\nmain.go" {
		t.Errorf("tool result %+v", r)
	}
	if !near(out.res.Usage.CostUSD, 0.053335-0.01739) || out.res.Usage.InputTokens != 6889 {
		t.Errorf("turn 2 usage %+v", out.res.Usage)
	}
	closeSession(t, a, "s1")
}

// TestReplayOutputStreams replays the recorded output-only streams.
func TestReplayOutputStreams(t *testing.T) {
	cases := []struct {
		name    string
		file    string
		text    string
		stop    harness.StopReason
		errIs   error
		notices []string
		tool    sessions.ToolState
	}{
		{name: "tool round trip with partial messages", file: "claude-code-stream-json.jsonl",
			text: "I'll list the files in the current directory.The directory contains `README.md` and `main.go`. Done.", stop: harness.StopEnd, tool: sessions.ToolDone},
		{name: "no partial messages", file: "claude-code-stream-json-no-partial.jsonl",
			text: "I'll list the files in the current directory.The directory contains `README.md` and `main.go`. Done.", stop: harness.StopEnd, tool: sessions.ToolDone},
		{name: "resumed session", file: "claude-code-stream-json-resume.jsonl",
			text: "I'll list the files in the current directory.The directory contains `README.md` and `main.go`. Done.", stop: harness.StopEnd, tool: sessions.ToolDone},
		{name: "text only", file: "claude-code-stream-json-text-only.jsonl", stop: harness.StopEnd},
		{name: "max turns", file: "claude-code-stream-json-error-max-turns.jsonl",
			text: "I'll list the files in the current directory.", stop: harness.StopMaxTurns, tool: sessions.ToolDone},
		{name: "denied by the CLI's own rules", file: "claude-code-stream-json-permission-denied.jsonl", stop: harness.StopEnd, tool: sessions.ToolError},
		{name: "API 529 after retries", file: "claude-code-stream-json-api-error-529.jsonl", errIs: ErrAPI,
			notices: []string{"retrying (1/2) in 0.5s: 529 overloaded", "retrying (2/2) in 1.2s: 529 overloaded", "API Error: 529 Overloaded."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := scriptHost(t, playOutput(loadLines(t, c.file)))
			a := newTestAgent(t, Settings{})
			rec := &modeltest.Recorder{}
			out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "go"}, rec, h)
			if c.errIs != nil {
				if !errors.Is(out.err, c.errIs) {
					t.Fatalf("err %v, want %v", out.err, c.errIs)
				}
			} else if out.err != nil {
				t.Fatal(out.err)
			}
			if c.text != "" && rec.Joined("text") != c.text {
				t.Errorf("text %q", rec.Joined("text"))
			}
			if c.errIs == nil && out.res.Stop != c.stop {
				t.Errorf("stop %q, want %q", out.res.Stop, c.stop)
			}
			ns := rec.Notices()
			for i, n := range c.notices {
				if i >= len(ns) || !strings.HasPrefix(ns[i], n) {
					t.Errorf("notices %q, want %q", ns, c.notices)
					break
				}
			}
			if c.tool != "" {
				rs := toolResults(rec)
				if len(rs) != 1 {
					t.Fatalf("tool results %+v", rs)
				}
				for _, r := range rs {
					if r.State != c.tool {
						t.Errorf("tool result %+v, want %s", r, c.tool)
					}
				}
			}
			assertNoDangling(t, rec)
			if out.res.Resume == "" {
				t.Error("no resume token")
			}
			closeSession(t, a, "s")
		})
	}
}
