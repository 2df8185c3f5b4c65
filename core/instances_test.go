package core

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/instances"
)

// gitWorkspace makes a git repository with one commit.
func gitWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first"}} {
		if args[0] == "add" {
			if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return ws
}

// TestCreateOnInstance: a session created with an isolation gets an
// instance of its own (named after it), listed with it; another session
// can join it; it cannot be discarded while they run; a bad isolation or
// an unknown instance refuses and creates nothing.
func TestCreateOnInstance(t *testing.T) {
	ws := gitWorkspace(t)
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	s := r.create(CreateOptions{Agent: "a", Isolation: IsolationWorktree})
	if s.Instance != s.ID {
		t.Fatalf("instance %q, want the session's id %q", s.Instance, s.ID)
	}
	s2 := r.create(CreateOptions{Agent: "a", Instance: s.Instance})
	list, err := r.e.As("").ListInstances()
	if err != nil || len(list) != 1 || list[0].Kind != instances.Worktree || len(list[0].Sessions) != 2 ||
		list[0].Sessions[0] != s.ID || list[0].Sessions[1] != s2.ID {
		t.Fatalf("instances %+v, %v", list, err)
	}
	if _, err := os.Stat(filepath.Join(list[0].Path, "README.md")); err != nil {
		t.Fatalf("the instance lacks the workspace's file: %v", err)
	}
	var inUse *InUseError
	if err := r.e.As("").DiscardInstance(s.Instance, true); !errors.As(err, &inUse) || len(inUse.Sessions) != 2 {
		t.Fatalf("discard while in use: %v", err)
	}
	before, err := r.e.store.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []CreateOptions{{Agent: "a", Isolation: "bubble"}, {Agent: "a", Instance: "nope"},
		{Agent: "a", Isolation: IsolationCopy, Instance: s.Instance}} {
		if _, err := r.e.Create(o); err == nil {
			t.Fatalf("create %+v: no error", o)
		}
	}
	after, err := r.e.store.List()
	if err != nil || len(after) != len(before) {
		t.Fatalf("a refused create left sessions: %d before, %d after (%v)", len(before), len(after), err)
	}
	if list, err := r.e.As("").ListInstances(); err != nil || len(list) != 1 {
		t.Fatalf("a refused create left instances: %+v, %v", list, err)
	}
}

// TestPassiveEngineHasNoInstances: instances belong to the running engine.
func TestPassiveEngineHasNoInstances(t *testing.T) {
	ws := gitWorkspace(t)
	e, err := Open(ws, Options{Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	if _, err := e.As("").ListInstances(); !errors.Is(err, ErrNoInstances) {
		t.Fatalf("passive list: %v", err)
	}
}

// isolating resolves one agent whose configured isolation is iso.
type isolating struct {
	h   harness.Harness
	iso string
}

func (r isolating) Resolve(agent string) (harness.Harness, AgentSettings, error) {
	if agent != "a" {
		return nil, AgentSettings{}, ErrUnknownAgent
	}
	return r.h, AgentSettings{Isolation: r.iso}, nil
}

// TestAgentDefaultIsolation: a create that names neither an isolation nor
// an instance gets its agent's, whichever client sent it; one that names
// either keeps it.
func TestAgentDefaultIsolation(t *testing.T) {
	ws := gitWorkspace(t)
	e, err := Open(ws, Options{Agents: isolating{h: &scripted.Model{}, iso: IsolationWorktree}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	def, err := e.Create(CreateOptions{Agent: "a"})
	if err != nil || def.Instance != def.ID {
		t.Fatalf("the agent's default: %+v, %v", def, err)
	}
	in, err := e.Create(CreateOptions{Agent: "a", Isolation: IsolationInPlace})
	if err != nil || in.Instance != "" {
		t.Fatalf("in-place named: %+v, %v", in, err)
	}
	join, err := e.Create(CreateOptions{Agent: "a", Instance: def.Instance})
	if err != nil || join.Instance != def.Instance {
		t.Fatalf("join: %+v, %v", join, err)
	}
	if list, err := e.As("").ListInstances(); err != nil || len(list) != 1 {
		t.Fatalf("instances: %+v, %v", list, err)
	}
}
