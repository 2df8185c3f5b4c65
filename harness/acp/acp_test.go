package acp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// goRig runs the adapter against goAgent processes in a temp workspace.
type goRig struct {
	t  *testing.T
	a  *Agent
	h  *agenttest.Host
	mu sync.Mutex
	ag []*goAgent
}

func newGoRig(t *testing.T) *goRig {
	r := &goRig{t: t, h: agenttest.NewHost(t), a: New(Settings{Command: []string{"go-agent"}})}
	r.h.Fake = func([]string, []string) (terminal.Process, error) {
		ag := startGoAgent(r.h.Dir)
		r.mu.Lock()
		r.ag = append(r.ag, ag)
		r.mu.Unlock()
		return ag.proc, nil
	}
	t.Cleanup(func() { closeSession(t, r.a, "s1") })
	return r
}

func (r *goRig) agent(i int) *goAgent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ag[i]
}

func (r *goRig) turn(ctx context.Context, input, resume string) (harness.TurnResult, *modeltest.Recorder, error) {
	rec := &modeltest.Recorder{}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	res, err := r.a.Turn(ctx, harness.TurnRequest{SessionID: "s1", Input: input, Resume: resume}, rec, r.h)
	return res, rec, err
}

type toolSeen struct {
	name, input, output string
	state               sessions.ToolState
}

func toolsOf(rec *modeltest.Recorder) map[string]*toolSeen {
	out := map[string]*toolSeen{}
	for _, e := range rec.Events() {
		switch e.Kind {
		case "tool_start":
			out[e.ID] = &toolSeen{name: e.Name}
		case "tool_input":
			out[e.ID].input += e.Text
		case "tool_result":
			out[e.ID].output, out[e.ID].state = e.Text, e.State
		}
	}
	return out
}

// TestWriteAllowed: the permission goes to the operator with the diff, the
// agent gets its allow-once option (not the "always" one listed first), and
// its write arrives through Host.WriteFile.
func TestWriteAllowed(t *testing.T) {
	r := newGoRig(t)
	res, rec, err := r.turn(context.Background(), "WRITE hello.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != harness.StopEnd || res.Resume != "sess-1" || res.Usage.InputTokens != 11 {
		t.Fatalf("result %+v", res)
	}
	if got := r.agent(0).Picked(); len(got) != 1 || got[0] != "once" {
		t.Fatalf("options picked %v", got)
	}
	ap, _, writes, _ := snapshot(r.h)
	want := filepath.Join(r.h.Dir, "hello.txt")
	if len(ap) != 1 || ap[0].ToolCall != "w1" || ap[0].Tool != "edit" || ap[0].Kind != harness.ActionWrite || ap[0].Path != want || !strings.Contains(ap[0].Diff, "+hello") {
		t.Fatalf("approvals %+v", ap)
	}
	if len(writes) != 1 || writes[0] != want {
		t.Fatalf("writes %v", writes)
	}
	if b, err := os.ReadFile(want); err != nil || string(b) != "hello\n" {
		t.Fatalf("file %q %v", b, err)
	}
	tools := toolsOf(rec)
	if tools["w1"] == nil || tools["w1"].state != sessions.ToolDone || !strings.Contains(tools["w1"].output, "+hello") {
		t.Fatalf("tools %+v", tools)
	}
	if rec.Joined("text") != "wrote it" {
		t.Fatalf("text %q", rec.Joined("text"))
	}
}

// TestPermissionBeforeWholeCall: a permission request that overtakes the
// notification carrying its call's input still reaches the operator with
// the path and the diff.
func TestPermissionBeforeWholeCall(t *testing.T) {
	r := newGoRig(t)
	if _, _, err := r.turn(context.Background(), "LATEWRITE late.txt", ""); err != nil {
		t.Fatal(err)
	}
	ap, _, _, _ := snapshot(r.h)
	want := filepath.Join(r.h.Dir, "late.txt")
	if len(ap) != 1 || ap[0].Path != want || !strings.Contains(ap[0].Diff, "+late") {
		t.Fatalf("approvals %+v", ap)
	}
}

// TestWriteDenied: the agent gets the reject-once option, nothing is
// written, and the part shows the operator's denial.
func TestWriteDenied(t *testing.T) {
	r := newGoRig(t)
	r.h.Decide = deny
	_, rec, err := r.turn(context.Background(), "WRITE hello.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.agent(0).Picked(); len(got) != 1 || got[0] != "no" {
		t.Fatalf("options picked %v", got)
	}
	if _, _, writes, _ := snapshot(r.h); len(writes) != 0 {
		t.Fatalf("writes %v", writes)
	}
	tools := toolsOf(rec)
	if tools["w1"].state != sessions.ToolDenied || !strings.Contains(tools["w1"].output, "not that file") {
		t.Fatalf("tool %+v", tools["w1"])
	}
}

// TestReadAndSecondTurn: the agent's read (with line and limit) is served
// through Host.ReadFile, and a second turn runs in the same process and
// ACP session.
func TestReadAndSecondTurn(t *testing.T) {
	r := newGoRig(t)
	if err := os.WriteFile(filepath.Join(r.h.Dir, "notes.txt"), []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, rec, err := r.turn(context.Background(), "READ notes.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Joined("text") != "line 2: b\n" {
		t.Fatalf("text %q", rec.Joined("text"))
	}
	if _, reads, _, _ := snapshot(r.h); len(reads) != 1 || reads[0] != filepath.Join(r.h.Dir, "notes.txt") {
		t.Fatalf("reads %v", reads)
	}
	res2, rec2, err := r.turn(context.Background(), "hello again", res.Resume)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Resume != res.Resume || len(r.h.Procs()) != 1 {
		t.Fatalf("second turn: %q after %q, %d processes", res2.Resume, res.Resume, len(r.h.Procs()))
	}
	if rec2.Joined("reasoning") != "thinking" || rec2.Joined("text") != "echo: hello again" {
		t.Fatalf("second turn output %+v", rec2.Events())
	}
}

// TestTerminal: the agent's terminal runs through Host.Exec in the
// workspace; output, exit status and release reach the agent, and the tool
// part shows the terminal's output.
func TestTerminal(t *testing.T) {
	r := newGoRig(t)
	_, rec, err := r.turn(context.Background(), "RUN", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Joined("text"); !strings.HasPrefix(got, "exit 3: ") || !strings.Contains(got, "hi") || !strings.Contains(got, "err") {
		t.Fatalf("text %q", got)
	}
	_, _, _, execs := snapshot(r.h)
	if len(execs) != 1 || strings.Join(execs[0].Command, " ") != "sh -c echo hi; echo err >&2; exit 3" || execs[0].Dir != "" {
		t.Fatalf("execs %+v", execs)
	}
	ap, _, _, _ := snapshot(r.h)
	if len(ap) != 1 || !strings.HasPrefix(ap[0].Command, "sh -c") {
		t.Fatalf("approvals %+v", ap)
	}
	if tl := toolsOf(rec)["r1"]; tl == nil || tl.state != sessions.ToolDone || !strings.Contains(tl.output, "hi") {
		t.Fatalf("tool %+v", tl)
	}
}

// TestCancelWhileAsking cancels the turn while the permission waits: the
// agent is told "cancelled", the turn returns the context's error, the
// open part is closed as interrupted, and the next turn works.
func TestCancelWhileAsking(t *testing.T) {
	r := newGoRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	r.h.Decide = func(actx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		cancel()
		<-actx.Done()
		return harness.ApprovalAnswer{}, actx.Err()
	}
	res, rec, err := r.turn(ctx, "WRITE x.txt", "")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if got := r.agent(0).Picked(); len(got) != 1 || got[0] != "cancelled" {
		t.Fatalf("outcomes %v", got)
	}
	if tl := toolsOf(rec)["w1"]; tl == nil || tl.state != sessions.ToolInterrupted {
		t.Fatalf("tool %+v", tl)
	}
	r.h.Decide = allow
	if _, rec, err := r.turn(context.Background(), "after", res.Resume); err != nil || rec.Joined("text") != "echo: after" {
		t.Fatalf("next turn: %v %q", err, rec.Joined("text"))
	}
}

// TestCancelKillsTerminal cancels a turn whose command runs: the command
// is killed and the turn returns at once.
func TestCancelKillsTerminal(t *testing.T) {
	r := newGoRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, _, _, execs := snapshot(r.h); len(execs) > 0 {
				time.Sleep(100 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, rec, err := r.turn(ctx, "SLEEP", "")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if tl := toolsOf(rec)["r1"]; tl == nil || tl.state != sessions.ToolInterrupted {
		t.Fatalf("tool %+v", tl)
	}
}

// TestLoadSession: after a restart (a new adapter), the session the token
// names is loaded, and the history the agent replays is not output again.
func TestLoadSession(t *testing.T) {
	r := newGoRig(t)
	res, rec, err := r.turn(context.Background(), "hi", "sess-7")
	if err != nil {
		t.Fatal(err)
	}
	if res.Resume != "sess-7" {
		t.Fatalf("resume %q", res.Resume)
	}
	if strings.Contains(rec.Joined("text"), "OLD") || rec.Joined("text") != "echo: hi" {
		t.Fatalf("text %q", rec.Joined("text"))
	}
	if n := rec.Notices(); len(n) != 0 {
		t.Fatalf("notices %q", n)
	}
	// A token the agent does not know: a new session, with a notice.
	b := New(Settings{Command: []string{"go-agent"}})
	defer closeSession(t, b, "s2")
	rec2 := &modeltest.Recorder{}
	res2, err := b.Turn(context.Background(), harness.TurnRequest{SessionID: "s2", Input: "x", Resume: "gone"}, rec2, r.h)
	if err != nil || res2.Resume == "gone" || len(rec2.Notices()) != 1 {
		t.Fatalf("resume %q, err %v, notices %q", res2.Resume, err, rec2.Notices())
	}
}

// TestAgentDies: an agent that exits mid-turn fails the turn with its exit
// code and stderr tail, and the next turn starts a new agent.
func TestAgentDies(t *testing.T) {
	r := newGoRig(t)
	_, _, err := r.turn(context.Background(), "DIE", "")
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exit code 2") || !strings.Contains(err.Error(), "the model went away") {
		t.Fatalf("err %v", err)
	}
	if _, rec, err := r.turn(context.Background(), "again", ""); err != nil || rec.Joined("text") != "echo: again" || len(r.h.Procs()) != 2 {
		t.Fatalf("next turn: %v, %d processes", err, len(r.h.Procs()))
	}
}

// TestGarbageLine: a line that is not JSON-RPC fails the turn with
// ErrProtocol and shows the line.
func TestGarbageLine(t *testing.T) {
	r := newGoRig(t)
	_, _, err := r.turn(context.Background(), "GARBAGE", "")
	if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "Traceback") {
		t.Fatalf("err %v", err)
	}
}

// TestStartFailures: no command, a missing binary.
func TestStartFailures(t *testing.T) {
	h := agenttest.NewHost(t)
	_, err := New(Settings{}).Turn(context.Background(), harness.TurnRequest{SessionID: "s"}, &modeltest.Recorder{}, h)
	if !errors.Is(err, ErrNoCommand) {
		t.Fatalf("err %v", err)
	}
	_, err = New(Settings{Command: []string{filepath.Join(h.Dir, "no-such-agent")}}).Turn(context.Background(), harness.TurnRequest{SessionID: "s"}, &modeltest.Recorder{}, h)
	if err == nil || !strings.Contains(err.Error(), "no-such-agent") {
		t.Fatalf("err %v", err)
	}
}
