package instances

import (
	"errors"
	"testing"
)

func TestBranch(t *testing.T) {
	ws := diffRepo(t)
	m := open(t, ws, Options{})
	in, err := m.Create(Worktree, "i")
	if err != nil {
		t.Fatal(err)
	}
	write(t, in.Path, map[string]string{"a.txt": "committed\n"})
	run(t, in.Path, "commit", "-qam", "agent's commit")
	write(t, in.Path, map[string]string{"b.txt": "not committed\n"})
	head := run(t, ws, "symbolic-ref", "HEAD")
	status := run(t, ws, "status", "--porcelain")
	commit, err := m.Branch("i", "feature/agent")
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, ws, "rev-parse", "feature/agent"); got != commit {
		t.Errorf("feature/agent at %s, want %s", got, commit)
	}
	if got := run(t, ws, "show", "feature/agent:a.txt"); got != "committed" {
		t.Errorf("a.txt on the branch: %q", got)
	}
	if got := run(t, ws, "show", "feature/agent:b.txt"); got != "not committed" {
		t.Errorf("b.txt on the branch: %q", got)
	}
	if run(t, ws, "rev-parse", "feature/agent~1") != run(t, ws, "rev-parse", "atelier/i") {
		t.Error("the branch is not the instance's commits plus one")
	}
	if run(t, ws, "symbolic-ref", "HEAD") != head || run(t, ws, "status", "--porcelain") != status {
		t.Error("Branch checked something out")
	}
	if st := run(t, in.Path, "status", "--porcelain"); st != "?? b.txt" {
		t.Errorf("Branch changed the instance: %q", st)
	}
	for _, name := range []string{"feature/agent", "atelier/x", "bad..name", "-f", ""} {
		if _, err := m.Branch("i", name); err == nil {
			t.Errorf("Branch(%q) succeeded", name)
		}
	}
	c, err := m.Create(Copy, "c")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Branch(c.ID, "x"); !errors.Is(err, ErrNotWorktree) {
		t.Errorf("Branch of a copy: %v", err)
	}
	if _, err := m.Branch("none", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Branch of no instance: %v", err)
	}
	// The branch outlives the instance; atelier/i does not.
	if err := m.Discard("i", true); err != nil {
		t.Fatal(err)
	}
	if run(t, ws, "branch", "--list", "feature/agent", "atelier/i") != "feature/agent" {
		t.Errorf("branches after discard: %q", run(t, ws, "branch", "--list"))
	}
}
