package acp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/agenttest"
	"github.com/atelier-studio/atelier/internal/netns"
	"github.com/atelier-studio/atelier/internal/testreq"
	"github.com/atelier-studio/atelier/sessions"
)

// claudeACPVersion is the npm release of @zed-industries/claude-code-acp
// the real-agent tests were written against (it bundles Claude Code
// through @anthropic-ai/claude-agent-sdk).
const claudeACPVersion = "0.16.2"

// claudeRig runs claude-code-acp from PATH against a fake Anthropic
// server, with a throwaway HOME.
type claudeRig struct {
	h   *agenttest.Host
	srv *fakeAnthropic
	a   *Agent
}

func newClaudeRig(t *testing.T, reply func(anthropicRequest) anthropicReply) *claudeRig {
	t.Helper()
	bin := testreq.Binary(t, "claude-code-acp", "claude-code-acp")
	t.Logf("written against claude-code-acp %s (.ci/setup.d/acp.sh)", claudeACPVersion)
	h := agenttest.NewHost(t)
	home := t.TempDir()
	srv := newFakeAnthropic(t, reply)
	a := New(Settings{Command: []string{bin}, Env: []string{
		"HOME=" + home,
		"ANTHROPIC_BASE_URL=" + srv.URL,
		"ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_MAX_RETRIES=0",
		// An inherited IS_SANDBOX (not "1") makes the adapter ask Claude
		// Code to skip permissions, which it refuses to do as root.
		"IS_SANDBOX=",
	}})
	t.Cleanup(func() { closeSession(t, a, "s1") })
	return &claudeRig{h: h, srv: srv, a: a}
}

func (r *claudeRig) turn(ctx context.Context, input, resume string) (harness.TurnResult, *modeltest.Recorder, error) {
	rec := &modeltest.Recorder{}
	res, err := r.a.Turn(ctx, harness.TurnRequest{SessionID: "s1", Input: input, Resume: resume}, rec, r.h)
	return res, rec, err
}

func claudeCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestClaudeACPWriteAndBash runs Claude Code through its ACP adapter: the
// model's Write asks the operator, and the allowed write arrives through
// Host.WriteFile; its Bash command asks, then runs through a terminal on
// Host.Exec; both results reach the model.
func TestClaudeACPWriteAndBash(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	var r *claudeRig
	r = newClaudeRig(t, func(req anthropicRequest) anthropicReply {
		if _, ok := req.toolResult("toolu_write1"); !ok {
			return anthropicReply{ToolID: "toolu_write1", ToolName: "mcp__acp__Write",
				ToolInput: map[string]any{"file_path": filepath.Join(r.h.Dir, "from_claude.txt"), "content": "written by claude\n"}}
		}
		if _, ok := req.toolResult("toolu_bash1"); !ok {
			return anthropicReply{ToolID: "toolu_bash1", ToolName: "mcp__acp__Bash",
				ToolInput: map[string]any{"command": "echo BASH-RAN && ls", "description": "list", "timeout": 30000}}
		}
		return anthropicReply{Text: "All done."}
	})
	res, rec, err := r.turn(claudeCtx(t), "write the file then list", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != harness.StopEnd || res.Resume == "" {
		t.Fatalf("result %+v", res)
	}
	ap, _, writes, execs := snapshot(r.h)
	t.Logf("approvals %+v\nwrites %v\nexecs %+v", ap, writes, execs)
	want := filepath.Join(r.h.Dir, "from_claude.txt")
	if len(writes) != 1 || writes[0] != want {
		t.Fatalf("writes %v", writes)
	}
	if b, err := os.ReadFile(want); err != nil || string(b) != "written by claude\n" {
		t.Fatalf("file %q %v", b, err)
	}
	for _, q := range r.srv.requests() {
		if out, ok := q.toolResult("toolu_bash1"); ok {
			t.Logf("bash result: %s", out)
		}
	}
	if len(execs) != 1 {
		t.Fatalf("execs %+v", execs)
	}
	if len(ap) != 2 {
		t.Fatalf("approvals %+v", ap)
	}
	var bashOut string
	for _, q := range r.srv.requests() {
		if out, ok := q.toolResult("toolu_bash1"); ok {
			bashOut = out
		}
	}
	if !strings.Contains(bashOut, "BASH-RAN") || !strings.Contains(bashOut, "from_claude.txt") {
		t.Fatalf("the command's output did not reach the model: %q", bashOut)
	}
	tools := toolsOf(rec)
	for id, tl := range tools {
		t.Logf("tool %s: %+v", id, *tl)
		if tl.state != sessions.ToolDone {
			t.Errorf("tool %s not done", id)
		}
	}
	if !strings.Contains(rec.Joined("text"), "All done.") {
		t.Fatalf("text %q", rec.Joined("text"))
	}
}

// writeScript makes the model write name, then finish with "Finished.".
func writeScript(r **claudeRig, id, name string) func(anthropicRequest) anthropicReply {
	return func(req anthropicRequest) anthropicReply {
		if _, ok := req.toolResult(id); !ok && !strings.Contains(req.raw, "SECOND-TURN") {
			return anthropicReply{ToolID: id, ToolName: "mcp__acp__Write",
				ToolInput: map[string]any{"file_path": filepath.Join((*r).h.Dir, name), "content": "x\n"}}
		}
		return anthropicReply{Text: "Finished."}
	}
}

// TestClaudeACPDenyAndSecondTurn: a denied write never reaches the host,
// the model is told, and a second turn runs in the same agent process.
func TestClaudeACPDenyAndSecondTurn(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	var r *claudeRig
	r = newClaudeRig(t, writeScript(&r, "toolu_w", "denied.txt"))
	r.h.Decide = deny
	res, rec, err := r.turn(claudeCtx(t), "write it", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, writes, _ := snapshot(r.h); len(writes) != 0 {
		t.Fatalf("writes %v", writes)
	}
	if tl := toolsOf(rec)["toolu_w"]; tl == nil || tl.state != sessions.ToolDenied {
		t.Fatalf("tool %+v", tl)
	}
	res2, rec2, err := r.turn(claudeCtx(t), "SECOND-TURN hello", res.Resume)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Resume != res.Resume || len(r.h.Procs()) != 1 || !strings.Contains(rec2.Joined("text"), "Finished.") {
		t.Fatalf("second turn: %q/%q, %d processes, text %q", res2.Resume, res.Resume, len(r.h.Procs()), rec2.Joined("text"))
	}
	// This adapter ends the turn on a refusal; the model learns of it with
	// the next turn's request.
	var told string
	for _, q := range r.srv.requests() {
		if out, ok := q.toolResult("toolu_w"); ok {
			told = out
		}
	}
	if !strings.Contains(told, "refused") {
		t.Fatalf("the denial did not reach the model: %q", told)
	}
}

// TestClaudeACPCancel cancels the turn while the write waits for the
// operator: session/cancel, a prompt answered promptly, nothing written,
// the open part interrupted.
func TestClaudeACPCancel(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	var r *claudeRig
	r = newClaudeRig(t, writeScript(&r, "toolu_c", "never.txt"))
	ctx, cancel := context.WithCancel(claudeCtx(t))
	r.h.Decide = func(actx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		cancel()
		<-actx.Done()
		return harness.ApprovalAnswer{}, actx.Err()
	}
	_, rec, err := r.turn(ctx, "write it", "")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if tl := toolsOf(rec)["toolu_c"]; tl == nil || tl.state != sessions.ToolInterrupted {
		t.Fatalf("tool %+v", tl)
	}
	if _, err := os.Stat(filepath.Join(r.h.Dir, "never.txt")); err == nil {
		t.Fatal("the write happened")
	}
}

// TestClaudeACPDies kills the agent while its write waits: the turn fails
// with ErrExited and the agent's exit code.
func TestClaudeACPDies(t *testing.T) {
	if !netns.Enter(t) {
		return
	}
	var r *claudeRig
	r = newClaudeRig(t, writeScript(&r, "toolu_d", "x.txt"))
	r.h.Decide = func(ctx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
		p := r.h.Procs()[0]
		_ = p.Kill()
		<-ctx.Done()
		return harness.ApprovalAnswer{}, ctx.Err()
	}
	_, rec, err := r.turn(claudeCtx(t), "write it", "")
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exit code") {
		t.Fatalf("err %v", err)
	}
	if tl := toolsOf(rec)["toolu_d"]; tl == nil || tl.state == "" {
		t.Fatalf("tool %+v", tl)
	}
}
