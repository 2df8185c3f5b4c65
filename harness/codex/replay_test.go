package codex

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/sessions"
)

const fixtureThread = "01a22611-4246-7442-81fa-8ae3c7bdc531"

// replayTurn runs one turn of a new session against a recorded transcript.
func replayTurn(t *testing.T, name string, decide func(context.Context, harness.ApprovalRequest) (harness.ApprovalAnswer, error), interrupt bool) (*agenttest.Host, *modeltest.Recorder, *replayer, harness.TurnResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f := agenttest.NewProc()
	var onInterrupt func()
	if interrupt {
		onInterrupt = cancel
	}
	r := replay(f, loadTranscript(t, name), onInterrupt)
	h := &agenttest.Host{Dir: "/home/dev/project", Fake: agenttest.FakeOnly(f), Decide: decide}
	a := New(Settings{Model: "gpt-5.5"})
	rec := &modeltest.Recorder{}
	res, err := a.Turn(ctx, harness.TurnRequest{SessionID: "s1", Turn: 1, Input: "RUNWRITE create a marker file then add hello.txt"}, rec, h)
	if err := a.CloseSession("s1"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the CLI was not ended by CloseSession")
	}
	r.check(t)
	return h, rec, r, res, err
}

type toolSeen struct {
	name, input, output string
	state               sessions.ToolState
}

func toolsOf(rec *modeltest.Recorder) (map[string]*toolSeen, []string) {
	out := map[string]*toolSeen{}
	var order []string
	for _, e := range rec.Events() {
		switch e.Kind {
		case "tool_start":
			out[e.ID] = &toolSeen{name: e.Name}
			order = append(order, e.ID)
		case "tool_input":
			out[e.ID].input += e.Text
		case "tool_result":
			out[e.ID].output, out[e.ID].state = e.Text, e.State
		}
	}
	return out, order
}

func TestReplayApprovedTurn(t *testing.T) {
	h, rec, r, res, err := replayTurn(t, "codex-app-server.jsonl", allow, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != harness.StopEnd || res.Resume != fixtureThread {
		t.Fatalf("result %+v", res)
	}
	if got := rec.Joined("text"); got != "Creating the marker file.I listed the files and created `hello.txt`." {
		t.Fatalf("text %q", got)
	}
	tools, order := toolsOf(rec)
	if len(order) != 2 {
		t.Fatalf("tool calls %v", order)
	}
	ex := tools["call_7e132f605fb641119166a854"]
	if ex == nil || ex.name != ToolExec || ex.state != sessions.ToolDone {
		t.Fatalf("exec part %+v", ex)
	}
	var in struct{ Command string }
	if err := json.Unmarshal([]byte(ex.input), &in); err != nil || in.Command != "/bin/bash -lc 'touch created_by_codex.txt'" {
		t.Fatalf("exec input %q %v", ex.input, err)
	}
	patch := tools["call_256f74030dbe43ddb0f3adde"]
	if patch == nil || patch.name != ToolPatch || patch.state != sessions.ToolDone || !strings.Contains(patch.input, "+hello from codex") {
		t.Fatalf("patch part %+v", patch)
	}
	ap := h.Approvals()
	if len(ap) != 2 {
		t.Fatalf("approvals %+v", ap)
	}
	if ap[0].Tool != ToolExec || ap[0].Command != "/bin/bash -lc 'touch created_by_codex.txt'" || ap[0].ToolCall != "call_7e132f605fb641119166a854" {
		t.Fatalf("command approval %+v", ap[0])
	}
	if ap[0].Kind != harness.ActionExec || ap[1].Kind != harness.ActionWrite {
		t.Fatalf("the approvals' kinds: %q, %q (want exec, write)", ap[0].Kind, ap[1].Kind)
	}
	if ap[1].Tool != ToolPatch || ap[1].Path != "/home/dev/project/hello.txt" || !strings.Contains(ap[1].Diff, "+++ b/hello.txt") || !strings.Contains(ap[1].Diff, "+hello from codex") {
		t.Fatalf("patch approval %+v", ap[1])
	}
	if d0, d1 := r.decision("0"), r.decision("1"); d0 != "accept" || d1 != "accept" {
		t.Fatalf("decisions sent %q %q", d0, d1)
	}
	var last sessions.Usage
	for _, e := range rec.Events() {
		if e.Kind == "usage" {
			last = e.Usage
		}
	}
	if last.InputTokens != 7440 || last.OutputTokens != 288 || res.Usage != last {
		t.Fatalf("usage %+v, result %+v", last, res.Usage)
	}
	if n := rec.Notices(); len(n) != 1 || !strings.Contains(n[0], "bubblewrap") {
		t.Fatalf("notices %q", n)
	}
	// The CLI runs in the isolating wrapper (harness.EnvSpec.Isolate).
	if argv := h.Spawns()[0]; argv[0] != "sh" || argv[4] != "codex" || argv[5] != "app-server" {
		t.Fatalf("argv %q", argv)
	}
}

func TestReplayDeclinedTurn(t *testing.T) {
	h, rec, r, res, err := replayTurn(t, "codex-app-server-decline.jsonl", deny, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != harness.StopEnd {
		t.Fatalf("result %+v", res)
	}
	if d0, d1 := r.decision("0"), r.decision("1"); d0 != "decline" || d1 != "decline" {
		t.Fatalf("decisions sent %q %q", d0, d1)
	}
	tools, order := toolsOf(rec)
	if len(order) != 2 {
		t.Fatalf("tool calls %v", order)
	}
	for _, id := range order {
		if tools[id].state != sessions.ToolDenied || !strings.Contains(tools[id].output, "not now") {
			t.Fatalf("tool %s: %+v", id, tools[id])
		}
	}
	if len(h.Approvals()) != 2 {
		t.Fatalf("approvals %+v", h.Approvals())
	}
}

// TestReplayInterrupt cancels the turn while an approval waits: the adapter
// answers the approval "cancel", sends turn/interrupt, waits for Codex's
// turn/completed, closes the open exec part as interrupted and returns the
// context's error.
func TestReplayInterrupt(t *testing.T) {
	_, rec, r, res, err := replayTurn(t, "codex-app-server-interrupt.jsonl", block, true)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if res.Resume == "" {
		t.Fatal("no resume token after an interrupted turn")
	}
	if d := r.decision("0"); d != "cancel" {
		t.Fatalf("pending approval answered %q", d)
	}
	tools, order := toolsOf(rec)
	if len(order) != 1 || tools[order[0]].state != sessions.ToolInterrupted {
		t.Fatalf("tools %+v", tools)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !contains(r.methods, "turn/interrupt") {
		t.Fatalf("adapter sent %v", r.methods)
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
