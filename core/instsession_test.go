package core

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// callsByID returns the outputs of a session's tool calls by call id.
func callsByID(t *testing.T, e *Engine, id string) map[string]sessions.ToolCall {
	t.Helper()
	msgs, _, err := e.Transcript(id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]sessions.ToolCall{}
	for _, c := range tools(msgs) {
		out[c.ID] = c
	}
	return out
}

// TestSessionWorksOnItsInstance: a session on a worktree instance writes,
// edits, reads, lists, searches and runs commands in the instance's folder,
// never in the workspace's; a path that leaves the instance (into the
// workspace, or above) is refused.
func TestSessionWorksOnItsInstance(t *testing.T) {
	ws := gitWorkspace(t)
	m := &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{
		toolCall("w", "write_file", map[string]any{"path": "notes.txt", "content": "from the instance\n"}),
		toolCall("e", "edit_file", map[string]any{"path": "README.md", "old_text": "hello", "new_text": "hi"}),
		toolCall("r", "read_file", map[string]any{"path": "README.md"}),
		toolCall("l", "list", map[string]any{"path": "."}),
		toolCall("g", "grep", map[string]any{"pattern": "instance"}),
		toolCall("x", "exec", map[string]any{"command": "pwd; ls"}),
		toolCall("out", "write_file", map[string]any{"path": filepath.Join(ws, "escape.txt"), "content": "x"}),
		toolCall("up", "write_file", map[string]any{"path": "../escape.txt", "content": "x"}),
	}}}}
	r := openRig(t, ws, MapResolver{"a": m})
	s := r.create(CreateOptions{Agent: "a", Isolation: IsolationWorktree, AutoStart: true, Approval: PolicyAuto})
	if got := r.status(s.ID, sessions.Ended); got.EndReason != sessions.Completed {
		t.Fatalf("session ended %+v", got)
	}
	dir, err := r.e.InstancePath(s.Instance)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(b) != "from the instance\n" {
		t.Fatalf("the instance's notes.txt: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || string(b) != "hi\n" {
		t.Fatalf("the instance's README.md: %q, %v", b, err)
	}
	for _, f := range []string{"notes.txt", "escape.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s reached the workspace: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a write went above the instance: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "README.md")); err != nil || string(b) != "hello\n" {
		t.Fatalf("the workspace's README.md changed: %q, %v", b, err)
	}
	out := callsByID(t, r.e, s.ID)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"r": "hi\n", "x": real + "\n"} {
		if c := out[id]; c.State != sessions.ToolDone || !strings.HasPrefix(c.Output, want) {
			t.Fatalf("%s: %+v, want output starting %q", id, c, want)
		}
	}
	for id, want := range map[string]string{"l": "notes.txt", "g": "notes.txt:1: from the instance", "x": "notes.txt"} {
		if c := out[id]; !strings.Contains(c.Output, want) {
			t.Fatalf("%s: %q lacks %q", id, c.Output, want)
		}
	}
	for _, id := range []string{"out", "up"} {
		if c := out[id]; c.State == sessions.ToolDone {
			t.Fatalf("%s: a write leaving the instance ran: %+v", id, c)
		}
	}
}

// TestTwoInstancesKeepTheirOwn: two sessions on two instances write the
// same path differently, at the same time (neither waits for the other's
// write lease, nor for the workspace's), and each instance keeps its own.
func TestTwoInstancesKeepTheirOwn(t *testing.T) {
	ws := gitWorkspace(t)
	write := func(content string) *scripted.Model {
		return &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{
			toolCall("w", "write_file", map[string]any{"path": "same.txt", "content": content}),
		}}}}
	}
	r := openRig(t, ws, MapResolver{"a": write("a\n"), "b": write("b\n")})
	// The workspace's write lease held throughout: instance sessions do not
	// wait for it.
	release, err := r.e.LeaseWriteOf(r.e.ctx, "", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	sa := r.create(CreateOptions{Agent: "a", Isolation: IsolationWorktree, AutoStart: true, Approval: PolicyAuto})
	sb := r.create(CreateOptions{Agent: "b", Isolation: IsolationCopy, AutoStart: true, Approval: PolicyAuto})
	for _, s := range []sessions.Session{sa, sb} {
		if got := r.status(s.ID, sessions.Ended); got.EndReason != sessions.Completed {
			t.Fatalf("session ended %+v", got)
		}
	}
	for s, want := range map[string]string{sa.Instance: "a\n", sb.Instance: "b\n"} {
		dir, err := r.e.InstancePath(s)
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "same.txt")); err != nil || string(b) != want {
			t.Fatalf("instance %s: %q, %v; want %q", s, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "same.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the workspace got same.txt: %v", err)
	}
}

// TestTerminalOnAnInstance: a terminal opened for a session on an instance
// starts in the instance's folder.
func TestTerminalOnAnInstance(t *testing.T) {
	ws := gitWorkspace(t)
	r := openRig(t, ws, idleAgent())
	rec := r.create(CreateOptions{Agent: "m", Instructions: "t", Isolation: IsolationWorktree})
	dir, err := r.e.InstancePath(rec.Instance)
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	term := openShell(t, r.e, rec.ID)
	c := term.Attach()
	typeIn(t, term, `echo "[$(pwd)]"`)
	readUntil(t, c, "["+real+"]")
}

// whereAgent is an agent that says where its host puts it: the folder
// Workspace names and the folder a process it spawns starts in.
type whereAgent struct{}

func (whereAgent) Name() string       { return "where" }
func (whereAgent) Caps() harness.Caps { return harness.Caps{Boundary: harness.TurnBoundary} }
func (whereAgent) Turn(ctx context.Context, req harness.TurnRequest, out harness.Emitter, h harness.Host) (harness.TurnResult, error) {
	p, err := h.Spawn(ctx, []string{"pwd"}, nil)
	if err != nil {
		return harness.TurnResult{}, err
	}
	b, err := io.ReadAll(p.Stdout())
	if err != nil {
		return harness.TurnResult{}, err
	}
	if _, err := p.Wait(); err != nil {
		return harness.TurnResult{}, err
	}
	out.Text("workspace " + h.Workspace() + " cwd " + strings.TrimSpace(string(b)))
	return harness.TurnResult{Stop: harness.StopEnd}, nil
}

// TestAgentOnAnInstance: an agent program on an instance is told the
// instance's folder as its workspace and runs there.
func TestAgentOnAnInstance(t *testing.T) {
	ws := gitWorkspace(t)
	r := openRig(t, ws, MapResolver{"w": whereAgent{}})
	s := r.create(CreateOptions{Agent: "w", Isolation: IsolationWorktree, AutoStart: true})
	if got := r.status(s.ID, sessions.Ended); got.EndReason != sessions.Completed {
		t.Fatalf("session ended %+v", got)
	}
	dir, err := r.e.InstancePath(s.Instance)
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	msgs, _, err := r.e.Transcript(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want, got := "workspace "+real+" cwd "+real, msgs[len(msgs)-1].Text(); got != want {
		t.Fatalf("the agent said %q, want %q", got, want)
	}
}
