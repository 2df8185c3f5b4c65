package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// openRigWith is openRig with the engine's options given.
func openRigWith(t *testing.T, ws string, o Options) *rig {
	t.Helper()
	e, err := Open(ws, o)
	if err != nil {
		t.Fatal(err)
	}
	_, sub := e.Subscribe()
	t.Cleanup(func() { closeEngine(t, e) })
	return &rig{t: t, ws: ws, e: e, sub: sub}
}

// notices returns the texts of a session's notice messages.
func notices(t *testing.T, e *Engine, id string) string {
	t.Helper()
	msgs, _, err := e.Transcript(id)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range msgs {
		if m.Role == sessions.Notice {
			b.WriteString(m.Text() + "\n")
		}
	}
	return b.String()
}

// TestInstanceSetupRunsOnce: the setup command runs in a new instance's
// folder before its first session's first turn, its output a notice in
// that session's transcript; a second session on the instance does not run
// it again, and a session on the workspace never runs it.
func TestInstanceSetupRunsOnce(t *testing.T) {
	ws := gitWorkspace(t)
	r := openRigWith(t, ws, Options{Agents: MapResolver{"a": &scripted.Model{}}, Workers: 2,
		Instances: InstanceOptions{Setup: "pwd; echo ran >> setup-count.txt"}})
	s := r.create(CreateOptions{Agent: "a", Isolation: IsolationWorktree, AutoStart: true})
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
	if n := notices(t, r.e, s.ID); !strings.Contains(n, "setup of instance "+s.Instance) || !strings.Contains(n, real+"\n") ||
		!strings.Contains(n, "[exit code 0]") {
		t.Fatalf("the setup's notice: %q", n)
	}
	s2 := r.create(CreateOptions{Agent: "a", Instance: s.Instance, AutoStart: true})
	r.status(s2.ID, sessions.Ended)
	in := r.create(CreateOptions{Agent: "a", AutoStart: true})
	r.status(in.ID, sessions.Ended)
	if b, err := os.ReadFile(filepath.Join(dir, "setup-count.txt")); err != nil || string(b) != "ran\n" {
		t.Fatalf("the setup ran %q times (%v), want once", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "setup-count.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the setup ran in the workspace: %v", err)
	}
	if n := notices(t, r.e, s2.ID) + notices(t, r.e, in.ID); strings.Contains(n, "setup") {
		t.Fatalf("another session ran the setup: %q", n)
	}
}

// TestInstanceSetupFailure: a failed setup fails the session's start with
// its exit code and the end of its stderr; the next session on the
// instance runs it again, saying first that it failed before.
func TestInstanceSetupFailure(t *testing.T) {
	ws := gitWorkspace(t)
	r := openRigWith(t, ws, Options{Agents: MapResolver{"a": &scripted.Model{}}, Workers: 2,
		Instances: InstanceOptions{Setup: "echo tried >> tries.txt; echo 'npm ERR! no network' >&2; exit 3"}})
	s := r.create(CreateOptions{Agent: "a", Isolation: IsolationCopy, AutoStart: true})
	got := r.status(s.ID, sessions.Ended)
	if got.EndReason != sessions.Failed || !strings.Contains(got.Error, "exit code 3") || !strings.Contains(got.Error, "npm ERR! no network") {
		t.Fatalf("session ended %+v", got)
	}
	s2 := r.create(CreateOptions{Agent: "a", Instance: s.Instance, AutoStart: true})
	r.until("the notice of a second try", func(ev Event) bool {
		return ev.Kind == EvNotice && ev.SessionID == s2.ID && strings.Contains(ev.Text, "failed before with exit code 3")
	})
	if got := r.status(s2.ID, sessions.Ended); got.EndReason != sessions.Failed {
		t.Fatalf("second session ended %+v", got)
	}
	dir, err := r.e.InstancePath(s.Instance)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "tries.txt")); err != nil || string(b) != "tried\ntried\n" {
		t.Fatalf("the setup's tries: %q, %v", b, err)
	}
}
