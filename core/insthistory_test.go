package core

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/instances"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
)

// writer is a model whose one turn writes path.
func writer(path, content string) *scripted.Model {
	return &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{
		toolCall("w", "write_file", map[string]any{"path": path, "content": content}),
	}}}}
}

// headOf is the last commit of a history (its workspace branch, or an
// instance's chain).
func headOf(t *testing.T, h *history.History) history.Commit {
	t.Helper()
	log, err := h.Log(context.Background(), "")
	if err != nil || len(log) == 0 {
		t.Fatalf("history log: %d commits, %v", len(log), err)
	}
	return log[0]
}

// committed waits for the history commit of a session's turn.
func (r *rig) committed(id string, turn int) string {
	r.t.Helper()
	return r.until("the commit of turn", func(ev Event) bool {
		return ev.Kind == EvCommit && ev.SessionID == id && ev.Turn == turn
	}).Text
}

// TestInstanceTurnsAndApplyInTheHistory: an instance session's turn is
// committed on the instance's chain, naming the instance, and the
// workspace's branch does not move; applying the instance is one commit
// on the workspace's branch whose blame names the instance session's turn;
// discarding the instance drops its chain.
func TestInstanceTurnsAndApplyInTheHistory(t *testing.T) {
	ws := gitWorkspace(t)
	m := &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{
		toolCall("w", "write_file", map[string]any{"path": "feature.txt", "content": "from the instance\n"}),
		toolCall("t", "write_file", map[string]any{"path": "tweak.txt", "content": "by the agent\n"}),
	}}}}
	r := openRig(t, ws, MapResolver{"a": m})
	h := r.e.History()
	if h == nil {
		t.Fatalf("no history: %v", r.e.HistoryError())
	}
	before := headOf(t, h)
	s := r.create(CreateOptions{Agent: "a", Isolation: IsolationCopy, AutoStart: true, Approval: PolicyAuto})
	r.status(s.ID, sessions.Ended)
	hash := r.committed(s.ID, 1)
	ih, err := r.e.HistoryOf(s.Instance)
	if err != nil {
		t.Fatal(err)
	}
	c := headOf(t, ih)
	if c.Hash != hash || c.Instance != s.Instance || c.SessionID != s.ID || c.Turn != 1 || c.Kind != history.KindTurn {
		t.Fatalf("the instance's last commit %+v, want turn 1 of %s on %s (%s)", c, s.ID, s.Instance, hash)
	}
	if after := headOf(t, h); after.Hash != before.Hash {
		t.Fatalf("the workspace's branch moved: %+v", after)
	}
	// The operator edits, in the instance, a file the turn wrote: the
	// apply does not credit the turn with the operator's edit.
	f, err := r.e.FilesOf(s.Instance)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(files.Operator, "tweak.txt", []byte("by the operator\n")); err != nil {
		t.Fatal(err)
	}
	res, err := r.e.As("").ApplyInstance(s.Instance, instances.ApplyOptions{})
	if err != nil || res.CommitErr != nil {
		t.Fatalf("apply: %+v, %v", res, err)
	}
	r.until("the instance applied", func(ev Event) bool { return ev.Kind == EvInstance && ev.Text == s.Instance })
	if b, err := os.ReadFile(filepath.Join(ws, "feature.txt")); err != nil || string(b) != "from the instance\n" {
		t.Fatalf("the workspace's feature.txt: %q, %v", b, err)
	}
	applied := headOf(t, h)
	if applied.Kind != history.KindApply || applied.Instance != s.Instance || applied.Parent != before.Hash {
		t.Fatalf("the workspace's last commit %+v, want the apply of %s on %s", applied, s.Instance, before.Hash)
	}
	blame, err := h.BlameAll(context.Background(), []string{"feature.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if b := blame["feature.txt"]; b.Hash != applied.Hash || b.SessionID != s.ID || b.Turn != 1 {
		t.Fatalf("blame of feature.txt %+v, want the apply naming turn 1 of %s", b, s.ID)
	}
	blame, err = h.BlameAll(context.Background(), []string{"tweak.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if b := blame["tweak.txt"]; b.Hash != applied.Hash || b.SessionID != "" {
		t.Fatalf("blame of tweak.txt %+v, want the apply naming no session", b)
	}
	if err := r.e.As("").DiscardInstance(s.Instance, false); err != nil {
		t.Fatal(err)
	}
	if log, err := h.Log(context.Background(), ""); err != nil || log[0].Hash != applied.Hash {
		t.Fatalf("discarding changed the workspace's branch: %v", err)
	}
	ref := exec.Command("git", "--git-dir", filepath.Join(ws, sessions.StateDir, "git"), "rev-parse", "--verify", "-q", "refs/instances/"+s.Instance)
	if out, err := ref.Output(); err == nil {
		t.Fatalf("the discarded instance's chain is still there: %s", out)
	}
}

// applyCrashExit is the exit code of a child that stopped right after its
// apply's history commit.
const applyCrashExit = 9

// TestChildApplier is the child of TestRecoveredApplyCommitsOnce (run only
// as a child): it applies the instance it is given and ends the process
// as soon as the apply's history commit is written, before the apply's
// journal says so.
func TestChildApplier(t *testing.T) {
	ws, id := os.Getenv("ATELIER_APPLIER_WS"), os.Getenv("ATELIER_APPLIER_INSTANCE")
	if ws == "" {
		t.Skip("helper process for TestRecoveredApplyCommitsOnce")
	}
	afterApplyCommit = func() { os.Exit(applyCrashExit) }
	e, err := Open(ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.As("").ApplyInstance(id, instances.ApplyOptions{})
	t.Fatalf("the apply returned: %+v, %v", res, err)
}

// TestRecoveredApplyCommitsOnce: an apply whose process died after its
// history commit and before its journal recorded it is finished by the
// next engine, which finds the commit and does not record it twice.
func TestRecoveredApplyCommitsOnce(t *testing.T) {
	ws := gitWorkspace(t)
	r := openRig(t, ws, MapResolver{"a": writer("feature.txt", "from the instance\n")})
	s := r.create(CreateOptions{Agent: "a", Isolation: IsolationWorktree, AutoStart: true, Approval: PolicyAuto})
	r.status(s.ID, sessions.Ended)
	r.committed(s.ID, 1)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildApplier$", "-test.v")
	cmd.Env = append(os.Environ(), "ATELIER_APPLIER_WS="+ws, "ATELIER_APPLIER_INSTANCE="+s.Instance)
	out, err := cmd.CombinedOutput()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != applyCrashExit {
		t.Fatalf("the child did not stop after its commit (%v):\n%s", err, out)
	}
	r2 := openRig(t, ws, MapResolver{})
	log, err := r2.e.History().Log(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range log {
		if c.Kind == history.KindApply {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d apply commits, want 1: %+v", n, log)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "feature.txt")); err != nil || string(b) != "from the instance\n" {
		t.Fatalf("the workspace's feature.txt: %q, %v", b, err)
	}
	if left, err := r2.e.As("").ApplyInstance(s.Instance, instances.ApplyOptions{Preview: true}); err != nil || len(left.Files) != 0 {
		t.Fatalf("the recovered apply left work to apply: %+v, %v", left, err)
	}
}
