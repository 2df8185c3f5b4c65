package api

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/instances"
)

// gitRig serves an engine on a git repository with one commit of a.txt.
func gitRig(t *testing.T) *rig {
	t.Helper()
	return openRig(t, gitWorkspace(t), Options{})
}

// gitWorkspace makes a git repository with one commit of a.txt.
func gitWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return ws
}

// wantCode checks err is the problem code and returns it.
func wantCode(t *testing.T, err error, code string) client.Problem {
	t.Helper()
	var p *client.Problem
	if !errors.As(err, &p) || p.Code != code {
		t.Fatalf("err = %v, want %s", err, code)
	}
	return *p
}

// TestInstanceRoutes walks the instance routes: the list with "main"
// first, create (with and without an id, refusing a bad kind, "main" and
// a taken id), the detail, the diff, the instance's files through the
// files routes, a preview, a conflict naming its file, a refused discard
// naming the unapplied file, branch, apply, discard, and 404s.
func TestInstanceRoutes(t *testing.T) {
	r := gitRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := r.c

	est, err := c.CopyEstimate(ctx)
	if err != nil || est.Size.Files == 0 || est.Size.Bytes == 0 || est.WarnSize != core.DefaultWarnSize {
		t.Fatalf("estimate = %+v, %v", est, err)
	}
	list, err := c.Instances(ctx)
	if err != nil || len(list) != 1 || list[0].ID != "main" || list[0].Kind != client.KindWorkspace || list[0].Path != r.eng.Workspace() {
		t.Fatalf("list = %+v, %v", list, err)
	}
	_, err = c.CreateInstance(ctx, client.CreateInstanceRequest{Kind: "clone"})
	wantCode(t, err, client.CodeBadRequest)
	_, err = c.CreateInstance(ctx, client.CreateInstanceRequest{Kind: "copy", ID: "main"})
	wantCode(t, err, client.CodeBadRequest)
	auto, err := c.CreateInstance(ctx, client.CreateInstanceRequest{Kind: "copy"})
	if err != nil || !strings.HasPrefix(auto.ID, "copy-") || auto.Kind != instances.Copy {
		t.Fatalf("create without id = %+v, %v", auto, err)
	}
	in, err := c.CreateInstance(ctx, client.CreateInstanceRequest{Kind: "worktree", ID: "w1"})
	if err != nil || in.Branch != "atelier/w1" {
		t.Fatalf("create = %+v, %v", in, err)
	}
	_, err = c.CreateInstance(ctx, client.CreateInstanceRequest{Kind: "worktree", ID: "w1"})
	wantCode(t, err, client.CodeInstanceExists)

	// The instance's file, written through its files route, lands in the
	// instance's folder only.
	if _, err := c.Files("w1").Write(ctx, "a.txt", []byte("one\ntwo\n"), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(in.Path, "a.txt")); err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("instance's a.txt = %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(r.ws, "a.txt")); err != nil || string(b) != "one\n" {
		t.Fatalf("the workspace's a.txt = %q, %v", b, err)
	}
	_, err = c.Files("nope").Read(ctx, "a.txt")
	wantCode(t, err, client.CodeUnknownInstance)

	d, err := c.Instance(ctx, "w1")
	if err != nil || d.Changed != 1 || d.Added != 1 || d.Removed != 0 || d.Size.Bytes == 0 {
		t.Fatalf("detail = %+v, %v", d, err)
	}
	diff, err := c.InstanceDiff(ctx, "w1")
	if err != nil || len(diff.Files) != 1 || !strings.Contains(diff.Patch, "+two") {
		t.Fatalf("diff = %+v, %v", diff, err)
	}
	pre, err := c.ApplyInstance(ctx, "w1", client.ApplyRequest{Preview: true})
	if err != nil || len(pre.Files) != 1 || pre.Files[0].Path != "a.txt" {
		t.Fatalf("preview = %+v, %v", pre, err)
	}
	p := wantCode(t, c.DiscardInstance(ctx, "w1", false), client.CodeUnappliedChanges)
	if !slices.Equal(p.Files, []string{"a.txt"}) {
		t.Fatalf("unapplied files = %v", p.Files)
	}
	if err := os.WriteFile(filepath.Join(r.ws, "a.txt"), []byte("zero\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = c.ApplyInstance(ctx, "w1", client.ApplyRequest{})
	p = wantCode(t, err, client.CodeInstanceConflict)
	if !slices.Equal(p.Files, []string{"a.txt"}) || p.Status != 409 {
		t.Fatalf("conflict = %+v", p)
	}
	b, err := c.BranchInstance(ctx, "w1", "review/w1")
	if err != nil || b.Branch != "review/w1" || len(b.Commit) != 40 {
		t.Fatalf("branch = %+v, %v", b, err)
	}
	_, err = c.BranchInstance(ctx, "w1", "review/w1")
	wantCode(t, err, client.CodeBadRequest)
	_, err = c.BranchInstance(ctx, auto.ID, "x")
	wantCode(t, err, client.CodeNotWorktree)

	for _, err := range []error{
		func() error { _, err := c.Instance(ctx, "nope"); return err }(),
		func() error { _, err := c.InstanceDiff(ctx, "Bad.Id"); return err }(),
		c.DiscardInstance(ctx, "nope", true),
	} {
		wantCode(t, err, client.CodeUnknownInstance)
	}
	_, err = c.InstanceDiff(ctx, "main")
	wantCode(t, err, client.CodeBadRequest)

	if err := c.DiscardInstance(ctx, "w1", true); err != nil {
		t.Fatal(err)
	}
	if err := c.DiscardInstance(ctx, auto.ID, false); err != nil {
		t.Fatal(err)
	}
	if list, err := c.Instances(ctx); err != nil || len(list) != 1 {
		t.Fatalf("after discards: %+v, %v", list, err)
	}
}

// TestInstancesInUseAndPassive: a session's instance is listed with it
// and not discarded while it runs (naming it); a passive engine has no
// instances and says so.
func TestInstancesInUseAndPassive(t *testing.T) {
	r := gitRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec, err := r.c.Create(ctx, client.CreateRequest{Agent: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.eng.Create(core.CreateOptions{Agent: "demo", Isolation: core.IsolationWorktree})
	if err != nil {
		t.Fatal(err)
	}
	list, err := r.c.Instances(ctx)
	if err != nil || len(list) != 2 || !slices.Equal(list[0].Sessions, []string{rec.ID}) || !slices.Equal(list[1].Sessions, []string{s.ID}) {
		t.Fatalf("list = %+v, %v", list, err)
	}
	p := wantCode(t, r.c.DiscardInstance(ctx, s.Instance, true), client.CodeInstanceInUse)
	if !slices.Equal(p.Sessions, []string{s.ID}) {
		t.Fatalf("in use by %v", p.Sessions)
	}

	eng, err := core.Open(r.ws, core.Options{Passive: true, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
	}()
	srv := NewServer(eng, Options{})
	defer srv.Close()
	err = instanceErr(eng.As("").DiscardInstance("x", false))
	if p := problemFor(err); p.Code != client.CodeNoInstances || !strings.Contains(p.Detail, "host") {
		t.Fatalf("passive: %+v", p)
	}
}

// TestCreateSessionIsolation: a create names its isolation or joins an
// instance (an agent's default isolation is the engine's: core's
// TestAgentDefaultIsolation); an unknown instance is 404 and a bad
// isolation 400, creating nothing.
func TestCreateSessionIsolation(t *testing.T) {
	r := gitRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wt, err := r.c.Create(ctx, client.CreateRequest{Agent: "demo", Isolation: "worktree"})
	if err != nil || wt.Instance != wt.ID {
		t.Fatalf("worktree: %+v, %v", wt, err)
	}
	in, err := r.c.Create(ctx, client.CreateRequest{Agent: "demo", Isolation: "in-place"})
	if err != nil || in.Instance != "" {
		t.Fatalf("in-place: %+v, %v", in, err)
	}
	join, err := r.c.Create(ctx, client.CreateRequest{Agent: "demo", Instance: wt.Instance})
	if err != nil || join.Instance != wt.Instance {
		t.Fatalf("join: %+v, %v", join, err)
	}
	_, err = r.c.Create(ctx, client.CreateRequest{Agent: "demo", Instance: "nope"})
	wantCode(t, err, client.CodeUnknownInstance)
	_, err = r.c.Create(ctx, client.CreateRequest{Agent: "demo", Isolation: "vm"})
	wantCode(t, err, client.CodeBadRequest)
	list, err := r.c.Instances(ctx)
	if err != nil || len(list) != 2 || !slices.Equal(list[0].Sessions, []string{in.ID}) {
		t.Fatalf("list = %+v, %v", list, err)
	}
}

// TestInstanceFileWritesTakeItsLease: a write to an instance's files waits
// for that instance's write lease (its sessions' writes), not for the
// workspace's, and the other way round.
func TestInstanceFileWritesTakeItsLease(t *testing.T) {
	r := gitRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := r.c.CreateInstance(ctx, client.CreateInstanceRequest{Kind: "copy", ID: "c1"}); err != nil {
		t.Fatal(err)
	}
	quick := client.WriteOptions{Wait: time.Millisecond}
	releaseWS, err := r.eng.LeaseWriteOf(ctx, "", "a-turn-in-the-workspace")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Files("c1").Write(ctx, "a.txt", []byte("instance\n"), quick); err != nil {
		t.Fatalf("an instance write waited for the workspace's lease: %v", err)
	}
	_, err = r.c.Files("main").Write(ctx, "a.txt", []byte("main\n"), quick)
	wantCode(t, err, client.CodeWorkspaceBusy)
	releaseWS()
	releaseInst, err := r.eng.LeaseWriteOf(ctx, "c1", "a-turn-in-c1")
	if err != nil {
		t.Fatal(err)
	}
	defer releaseInst()
	_, err = r.c.Files("c1").Write(ctx, "a.txt", []byte("again\n"), quick)
	if p := wantCode(t, err, client.CodeWorkspaceBusy); !strings.Contains(p.Detail, "a-turn-in-c1") {
		t.Fatalf("the refusal should name the instance's holder: %+v", p)
	}
	if _, err := r.c.Files("main").Write(ctx, "a.txt", []byte("main\n"), quick); err != nil {
		t.Fatalf("a workspace write waited for an instance's lease: %v", err)
	}
}
