package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

const sid = "0f0e0d0c-0b0a-4908-8706-050403020100"

// Scripted CLI lines.
func initLine() string {
	return fmt.Sprintf(`{"type":"system","subtype":"init","session_id":%q,"tools":["Bash"]}`, sid)
}

func textLines(msgID, text string) []string {
	return []string{
		fmt.Sprintf(`{"type":"stream_event","event":{"type":"message_start","message":{"id":%q,"content":[]}},"parent_tool_use_id":null}`, msgID),
		`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}},"parent_tool_use_id":null}`,
		fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}},"parent_tool_use_id":null}`, text),
		fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"content":[{"type":"text","text":%q}]},"parent_tool_use_id":null}`, msgID, text),
		`{"type":"stream_event","event":{"type":"content_block_stop","index":0},"parent_tool_use_id":null}`,
	}
}

func toolUseLines(msgID, toolID, input string) []string {
	return []string{
		fmt.Sprintf(`{"type":"stream_event","event":{"type":"message_start","message":{"id":%q,"content":[]}},"parent_tool_use_id":null}`, msgID),
		fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":%q,"name":"Bash","input":{}}},"parent_tool_use_id":null}`, toolID),
		fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":%q}},"parent_tool_use_id":null}`, input),
		fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"content":[{"type":"tool_use","id":%q,"name":"Bash","input":%s}]},"parent_tool_use_id":null}`, msgID, toolID, input),
	}
}

func resultLine(cost float64) string {
	return fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"session_id":%q,"total_cost_usd":%g,"usage":{"input_tokens":10,"output_tokens":2}}`, sid, cost)
}

func sendAll(f *fakeProc, lines ...string) {
	for _, l := range lines {
		f.send(l)
	}
}

// expect reads the adapter's next line and panics (failing the test
// through scriptHost) unless it is of kind k.
func expect(f *fakeProc, k string) map[string]any {
	m := f.read()
	if kindOf(m) != k {
		panic(fmt.Sprintf("adapter wrote %s, want %s", kindOf(m), k))
	}
	return m
}

func userText(m map[string]any) string {
	c, _ := m["message"].(map[string]any)["content"].(string)
	return c
}

// TestSteerDuringAnswerRunsAFollowUp: a steer written while the model
// answers without tools becomes a follow-up turn in the CLI (seen with the
// real CLI); Turn returns only after that one's result, with both answers
// and the summed usage. A steer after the turn is refused.
func TestSteerDuringAnswerRunsAFollowUp(t *testing.T) {
	steered := make(chan struct{})
	h := scriptHost(t, func(f *fakeProc) {
		f.answerInit(expect(f, "control_request/initialize"))
		u := expect(f, "user")
		sendAll(f, initLine())
		f.replay(u)
		sendAll(f, textLines("m1", "first answer.")[:3]...)
		close(steered)
		st := expect(f, "user")
		if userText(st) != "also this" {
			panic("steer text " + userText(st))
		}
		sendAll(f, textLines("m1", "first answer.")[3:]...)
		sendAll(f, resultLine(0.5), initLine())
		f.replay(st)
		sendAll(f, textLines("m2", " second answer.")...)
		sendAll(f, resultLine(0.75))
		for f.read() != nil {
		}
		f.Exit(0)
	})
	a := newTestAgent(t, Settings{})
	rec := &modeltest.Recorder{}
	errs := make(chan error, 1)
	go func() {
		<-steered
		errs <- a.Steer(context.Background(), "s", "also this")
	}()
	out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hello"}, rec, h)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	if out.err != nil {
		t.Fatal(out.err)
	}
	if got := rec.Joined("text"); got != "first answer. second answer." {
		t.Errorf("text %q", got)
	}
	if u := out.res.Usage; u.InputTokens != 20 || u.OutputTokens != 4 || !near(u.CostUSD, 0.75) {
		t.Errorf("usage %+v", u)
	}
	if err := a.Steer(context.Background(), "s", "late"); !errors.Is(err, ErrNoTurn) {
		t.Errorf("steer between turns: %v", err)
	}
	closeSession(t, a, "s")
}

// TestSteerNeverTaken: a result line while a steer waits, and then
// nothing: the turn ends after a bounded wait, says the steer was not
// taken, and the process holding it is not reused.
func TestSteerNeverTaken(t *testing.T) {
	steered := make(chan struct{})
	h := scriptHost(t, func(f *fakeProc) {
		f.answerInit(expect(f, "control_request/initialize"))
		u := expect(f, "user")
		sendAll(f, initLine())
		f.replay(u)
		close(steered)
		expect(f, "user")
		sendAll(f, textLines("m1", "answer")...)
		sendAll(f, resultLine(0.5))
		for f.read() != nil {
		}
		f.Exit(0)
	})
	a := newTestAgent(t, Settings{StartTimeout: 300 * time.Millisecond})
	go func() {
		<-steered
		if err := a.Steer(context.Background(), "s", "lost"); err != nil {
			t.Errorf("steer: %v", err) // taken by the CLI, which then never answers
		}
	}()
	rec := &modeltest.Recorder{}
	out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hello"}, rec, h)
	if out.err != nil || rec.Joined("text") != "answer" {
		t.Fatalf("%v %q", out.err, rec.Joined("text"))
	}
	if ns := rec.Notices(); len(ns) != 1 || !strings.Contains(ns[0], "steer") {
		t.Errorf("notices %q", ns)
	}
	kept := keptProc(a, "s")
	if kept != nil {
		t.Error("the process holding the steer was kept")
	}
}

// TestProcessDiesMidTurn: the CLI dying mid-turn fails the turn with its
// stderr tail, closes the open tool call as interrupted, and the next turn
// starts a new process that resumes claude's session.
func TestProcessDiesMidTurn(t *testing.T) {
	n := 0
	h := scriptHost(t, func(f *fakeProc) {
		n++
		f.answerInit(expect(f, "control_request/initialize"))
		u := expect(f, "user")
		sendAll(f, initLine())
		f.replay(u)
		if n == 1 {
			sendAll(f, toolUseLines("m1", "toolu_1", `{"command":"ls"}`)...)
			put(f.ErrW, []byte("fatal: out of memory\n"))
			f.Exit(134)
			return
		}
		sendAll(f, textLines("m2", "back")...)
		sendAll(f, resultLine(0.1))
		for f.read() != nil {
		}
		f.Exit(0)
	})
	a := newTestAgent(t, Settings{})
	rec := &modeltest.Recorder{}
	out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, rec, h)
	if !errors.Is(out.err, ErrExited) || !strings.Contains(out.err.Error(), "out of memory") || !strings.Contains(out.err.Error(), "exit code 134") {
		t.Fatalf("err %v", out.err)
	}
	if r := toolResults(rec)["toolu_1"]; r.State != sessions.ToolInterrupted {
		t.Errorf("tool result %+v", r)
	}
	if out.res.Resume != sid {
		t.Errorf("resume %q", out.res.Resume)
	}
	rec2 := &modeltest.Recorder{}
	out = runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "again", Resume: out.res.Resume}, rec2, h)
	if out.err != nil || rec2.Joined("text") != "back" {
		t.Fatalf("second turn: %v %q", out.err, rec2.Joined("text"))
	}
	if len(h.Spawns()) != 2 || !slices.Contains(h.Spawns()[1], "--resume") || !slices.Contains(h.Spawns()[1], sid) {
		t.Errorf("second process: %q", h.Spawns())
	}
	closeSession(t, a, "s")
}

// TestMalformedOutput: a line that is not stream-json fails the turn with
// a protocol error naming it, and the process is not kept.
func TestMalformedOutput(t *testing.T) {
	cases := map[string]string{
		"not json":           "Error: something went wrong",
		"truncated":          `{"type":"assistant","message":{"id":"m1","content":[{"type":"te`,
		"bad stream event":   `{"type":"stream_event","event":{"type":"content_block_start","index":0}}`,
		"bad assistant body": `{"type":"assistant","message":{"id":"m1","content":42}}`,
		"tool without id":    `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","name":"Bash","input":{}}]}}`,
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			h := scriptHost(t, func(f *fakeProc) {
				f.answerInit(expect(f, "control_request/initialize"))
				f.replay(expect(f, "user"))
				sendAll(f, initLine())
				sendAll(f, toolUseLines("m0", "toolu_9", `{}`)...)
				f.send(bad)
				for f.read() != nil {
				}
			})
			a := newTestAgent(t, Settings{})
			rec := &modeltest.Recorder{}
			out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, rec, h)
			if !errors.Is(out.err, ErrProtocol) {
				t.Fatalf("err %v", out.err)
			}
			assertNoDangling(t, rec)
			kept := keptProc(a, "s")
			if kept != nil {
				t.Error("a broken process was kept")
			}
		})
	}
}

// TestResumeRefusedStartsFresh: when claude cannot load the session to
// resume, the turn says so and runs in a new session.
func TestResumeRefusedStartsFresh(t *testing.T) {
	n := 0
	h := scriptHost(t, func(f *fakeProc) {
		n++
		if n == 1 {
			expect(f, "control_request/initialize")
			expect(f, "user")
			put(f.ErrW, []byte("No conversation found with session ID: 11111111-2222-4333-8444-555555555555\n"))
			f.send(`{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"session_id":"11111111-2222-4333-8444-555555555555","usage":{}}`)
			f.Exit(1)
			return
		}
		f.answerInit(expect(f, "control_request/initialize"))
		u := expect(f, "user")
		sendAll(f, initLine())
		f.replay(u)
		sendAll(f, textLines("m1", "fresh")...)
		sendAll(f, resultLine(0.1))
		for f.read() != nil {
		}
		f.Exit(0)
	})
	a := newTestAgent(t, Settings{})
	rec := &modeltest.Recorder{}
	out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi", Resume: "11111111-2222-4333-8444-555555555555"}, rec, h)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if rec.Joined("text") != "fresh" || out.res.Resume != sid {
		t.Errorf("text %q resume %q", rec.Joined("text"), out.res.Resume)
	}
	ns := rec.Notices()
	if len(ns) != 1 || !strings.Contains(ns[0], "No conversation found") {
		t.Errorf("notices %q", ns)
	}
	if len(h.Spawns()) != 2 || slices.Contains(h.Spawns()[1], "--resume") {
		t.Errorf("spawns %q", h.Spawns())
	}
	closeSession(t, a, "s")
}

// TestInterruptIgnoredIsKilled: a CLI that does not end its turn after the
// interrupt is killed at InterruptTimeout; Turn returns ctx's error and
// the open tool call is closed as interrupted.
func TestInterruptIgnoredIsKilled(t *testing.T) {
	started := make(chan struct{})
	h := scriptHost(t, func(f *fakeProc) {
		f.answerInit(expect(f, "control_request/initialize"))
		f.replay(expect(f, "user"))
		sendAll(f, initLine())
		sendAll(f, toolUseLines("m1", "toolu_1", `{"command":"sleep 100"}`)...)
		close(started)
		expect(f, "control_request/interrupt")
		for f.read() != nil { // ignores it
		}
	})
	a := newTestAgent(t, Settings{InterruptTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	rec := &modeltest.Recorder{}
	out := runTurn(t, a, ctx, harness.TurnRequest{SessionID: "s", Input: "hi"}, rec, h)
	if !errors.Is(out.err, context.Canceled) {
		t.Fatalf("err %v", out.err)
	}
	if r := toolResults(rec)["toolu_1"]; r.State != sessions.ToolInterrupted {
		t.Errorf("tool %+v", r)
	}
	if ns := rec.Notices(); len(ns) != 1 || !strings.Contains(ns[0], "killed") {
		t.Errorf("notices %q", ns)
	}
}

// TestHandshakeRefusedAndSilent: an initialize the CLI refuses, or never
// answers within StartTimeout, fails the turn with ErrHandshake.
func TestHandshakeRefusedAndSilent(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		h := scriptHost(t, func(f *fakeProc) {
			m := expect(f, "control_request/initialize")
			f.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "error", "request_id": m["request_id"], "error": "unsupported"}})
			for f.read() != nil {
			}
		})
		out := runTurn(t, newTestAgent(t, Settings{}), context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, h)
		if !errors.Is(out.err, ErrHandshake) || !strings.Contains(out.err.Error(), "unsupported") {
			t.Fatalf("err %v", out.err)
		}
	})
	t.Run("silent", func(t *testing.T) {
		h := scriptHost(t, func(f *fakeProc) {
			for f.read() != nil {
			}
		})
		out := runTurn(t, newTestAgent(t, Settings{StartTimeout: 100 * time.Millisecond}), context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, h)
		if !errors.Is(out.err, ErrHandshake) {
			t.Fatalf("err %v", out.err)
		}
	})
}

// TestAskUserQuestion: claude's AskUserQuestion tool goes to the operator
// as a question with its options, and the answer returns in the way the
// CLI reads it (verified against the real CLI): allow, with the input plus
// an answers map.
func TestAskUserQuestion(t *testing.T) {
	input := `{"questions":[{"question":"Which color?","header":"Color","options":[{"label":"red"},{"label":"blue"}],"multiSelect":false}]}`
	got := make(chan map[string]any, 1)
	h := scriptHost(t, func(f *fakeProc) {
		f.answerInit(expect(f, "control_request/initialize"))
		f.replay(expect(f, "user"))
		sendAll(f, initLine())
		f.send(`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion","input":` + input + `,"tool_use_id":"toolu_q"}}`)
		got <- expect(f, "control_response")
		sendAll(f, resultLine(0))
		for f.read() != nil {
		}
		f.Exit(0)
	})
	var asked []string
	h.Answer = func(ctx context.Context, text string, choices []string) (string, error) {
		asked = append(append(asked, text), choices...)
		return "blue", nil
	}
	a := newTestAgent(t, Settings{})
	out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, h)
	if out.err != nil {
		t.Fatal(out.err)
	}
	if !slices.Equal(asked, []string{"Which color?", "red", "blue"}) {
		t.Errorf("asked %q", asked)
	}
	resp := (<-got)["response"].(map[string]any)
	body, _ := json.Marshal(resp["response"])
	if resp["request_id"] != "r1" || !strings.Contains(string(body), `"behavior":"allow"`) || !strings.Contains(string(body), `"answers":{"Which color?":"blue"}`) || !strings.Contains(string(body), `"questions":[`) {
		t.Errorf("answer %v %s", resp["request_id"], body)
	}
	if len(h.Approvals()) != 0 {
		t.Error("a question went to approvals")
	}
	closeSession(t, a, "s")
}

// TestUnknownControlRequestIsAnswered: a request the adapter does not
// serve gets an error answer, so the CLI does not wait on it.
func TestUnknownControlRequestIsAnswered(t *testing.T) {
	got := make(chan map[string]any, 1)
	h := scriptHost(t, func(f *fakeProc) {
		f.answerInit(expect(f, "control_request/initialize"))
		f.replay(expect(f, "user"))
		f.send(`{"type":"control_request","request_id":"h1","request":{"subtype":"hook_callback","callback_id":"x"}}`)
		got <- expect(f, "control_response")
		sendAll(f, initLine(), resultLine(0))
		for f.read() != nil {
		}
		f.Exit(0)
	})
	a := newTestAgent(t, Settings{})
	if out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, h); out.err != nil {
		t.Fatal(out.err)
	}
	r := (<-got)["response"].(map[string]any)
	if r["subtype"] != "error" || r["request_id"] != "h1" {
		t.Errorf("answer %v", r)
	}
	closeSession(t, a, "s")
}

// TestFailedAnswerFailsTheTurn: when the answer to a request of the CLI
// cannot be written (its input is gone), the turn fails with that write's
// error and the process is not kept, rather than wait on a CLI that never
// got its answer. Both kinds of request the adapter refuses are covered:
// one it does not serve and one it cannot read.
func TestFailedAnswerFailsTheTurn(t *testing.T) {
	for name, req := range map[string]string{
		"unsupported": `{"type":"control_request","request_id":"h1","request":{"subtype":"hook_callback","callback_id":"x"}}`,
		"malformed":   `{"type":"control_request","request_id":"h1","request":"not an object"}`,
	} {
		t.Run(name, func(t *testing.T) {
			h := scriptHost(t, func(f *fakeProc) {
				f.answerInit(expect(f, "control_request/initialize"))
				f.replay(expect(f, "user"))
				sendAll(f, initLine())
				// The CLI's input breaks: every write of the adapter fails.
				f.InR.CloseWithError(errors.New("input pipe broken"))
				f.send(req)
				sendAll(f, resultLine(0))
				<-f.Done()
			})
			a := newTestAgent(t, Settings{})
			out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, h)
			if out.err == nil || !strings.Contains(out.err.Error(), "input pipe broken") || !strings.Contains(out.err.Error(), "request h1") {
				t.Fatalf("err %v", out.err)
			}
			if keptProc(a, "s") != nil {
				t.Error("a process that cannot take answers was kept")
			}
		})
	}
}

// TestApprovalShowsEdits: file tools show their path relative to the
// workspace and the change as a diff.
func TestApprovalShowsEdits(t *testing.T) {
	cases := []struct {
		name, tool, input string
		want              harness.ApprovalRequest
	}{
		{"edit", "Edit", `{"file_path":"/ws/a/b.go","old_string":"x := 1\n","new_string":"x := 2\ny := 3\n"}`,
			harness.ApprovalRequest{ToolCall: "t", Tool: "Edit", Kind: harness.ActionWrite, Path: "a/b.go", Diff: "--- a/a/b.go\n+++ b/a/b.go\n@@\n-x := 1\n+x := 2\n+y := 3\n"}},
		{"write", "Write", `{"file_path":"/ws/new.txt","content":"hello"}`,
			harness.ApprovalRequest{ToolCall: "t", Tool: "Write", Kind: harness.ActionWrite, Path: "new.txt", Diff: "--- a/new.txt\n+++ b/new.txt\n@@\n+hello\n"}},
		{"outside the workspace", "Read", `{"file_path":"/etc/passwd"}`,
			harness.ApprovalRequest{ToolCall: "t", Tool: "Read", Kind: harness.ActionRead, Path: "/etc/passwd"}},
		{"fetch", "WebFetch", `{"url":"https://example.com","prompt":"x"}`,
			harness.ApprovalRequest{ToolCall: "t", Tool: "WebFetch", Kind: harness.ActionRead, Command: "https://example.com"}},
		{"not an object", "Odd", `[1,2]`, harness.ApprovalRequest{ToolCall: "t", Tool: "Odd"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := approvalFor(controlRequest{ToolName: c.tool, ToolUseID: "t"}, json.RawMessage(c.input), "/ws")
			if got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestEmptyInputRefused: a turn with nothing to say is refused before
// anything starts.
func TestEmptyInputRefused(t *testing.T) {
	h := scriptHost(t, func(f *fakeProc) {})
	out := runTurn(t, newTestAgent(t, Settings{}), context.Background(), harness.TurnRequest{SessionID: "s", Input: "  "}, &modeltest.Recorder{}, h)
	if !errors.Is(out.err, ErrEmptyInput) || len(h.Spawns()) != 0 {
		t.Fatalf("err %v, %d spawns", out.err, len(h.Spawns()))
	}
	if _, err := New(Settings{Env: []string{"NOEQUALS"}}); !errors.Is(err, ErrBadSettings) {
		t.Errorf("bad env: %v", err)
	}
}

// TestRealProcessEnvironment runs the real launch wrapper in a real local
// environment with a stand-in program: the CLI sees the variables it
// needs and the settings' key and URL, never the operator's other
// variables; a missing binary is ErrNotFound; a CLI dying at start-up
// fails with its stderr.
func TestRealProcessEnvironment(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("ATELIER_TEST_OTHER_SECRET", "hunter2")
	env, err := terminal.NewLocal(terminal.LocalConfig{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, env)
	h := &agenttest.Host{Dir: ws, Env: env}
	show := `echo "key=$ANTHROPIC_API_KEY url=$ANTHROPIC_BASE_URL other=$ATELIER_TEST_OTHER_SECRET home=$HOME telemetry=$DISABLE_TELEMETRY extra=$EXTRA" >&2; exit 3`
	a := newTestAgent(t, Settings{Command: []string{"sh", "-c", show, "sh"}, APIKey: "sk-test", BaseURL: "http://127.0.0.1:1",
		Home: ws, Env: []string{"EXTRA=yes"}})
	out := runTurn(t, a, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, h)
	if !errors.Is(out.err, ErrExited) {
		t.Fatalf("err %v", out.err)
	}
	want := "key=sk-test url=http://127.0.0.1:1 other= home=" + ws + " telemetry=1 extra=yes"
	if !strings.Contains(out.err.Error(), want) {
		t.Errorf("the CLI saw another environment:\n%v\nwant %q", out.err, want)
	}
	for _, argv := range h.Spawns() {
		if strings.Contains(strings.Join(argv, " "), "sk-test") {
			t.Errorf("the key is on the command line: %q", argv)
		}
	}

	missing := newTestAgent(t, Settings{Command: []string{ws + "/no-such-claude"}})
	out = runTurn(t, missing, context.Background(), harness.TurnRequest{SessionID: "s", Input: "hi"}, &modeltest.Recorder{}, h)
	if !errors.Is(out.err, ErrNotFound) || !strings.Contains(out.err.Error(), "no-such-claude") {
		t.Errorf("missing binary: %v", out.err)
	}
	if _, err := os.Stat(ws); err != nil {
		t.Fatal(err)
	}
}

// keptProc is the process the adapter keeps for a session, nil for none.
func keptProc(a *Agent, id string) *proc {
	s, ok := a.sess.Peek(id)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}
