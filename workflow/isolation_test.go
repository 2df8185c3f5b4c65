package workflow

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// TestIsolatedRunWorksOnItsInstance: a workflow with isolation worktree
// (or copy) runs its steps on an instance made for its session: the
// workspace folder is not written, the instance is, and it stays after
// the run for review; a retry's session joins the same instance, so the
// step done before is still there.
func TestIsolatedRunWorksOnItsInstance(t *testing.T) {
	for _, kind := range []string{"worktree", "copy"} {
		t.Run(kind, func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", t.TempDir())
			g := newRig(t, map[string]string{"iso.toml": "isolation = \"" + kind + "\"\n" + flow(`
[[steps]]
key = "write"
exec = "echo made >> made.txt"
[[steps]]
key = "check"
exec = "test -f flag"
`)})
			if kind == "worktree" {
				for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
					{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first"}} {
					cmd := exec.Command("git", args...)
					cmd.Dir = g.ws
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("git %v: %v\n%s", args, err, out)
					}
				}
			}
			in := json.RawMessage(`{"id":"r1"}`)
			run, err := g.run(StartRequest{Workflow: "iso", Input: in})
			if err != nil {
				t.Fatal(err)
			}
			if run.Status != runs.Failed || run.Instance == "" || run.Instance != run.Session {
				t.Fatalf("run %+v: want failed at check, on an instance named after its session", run)
			}
			if _, err := os.Stat(filepath.Join(g.ws, "made.txt")); !os.IsNotExist(err) {
				t.Fatalf("the step wrote the workspace folder: %v", err)
			}
			path, err := g.eng.InstancePath(run.Instance)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(filepath.Join(path, "made.txt")); err != nil || string(b) != "made\n" {
				t.Fatalf("instance's made.txt = %q, %v", b, err)
			}
			// The flag goes where the steps look: the instance.
			if err := os.WriteFile(filepath.Join(path, "flag"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			first := run.Instance
			run, err = g.run(StartRequest{Workflow: "iso", Input: in, Retry: true})
			if err != nil {
				t.Fatal(err)
			}
			if run.Status != runs.Completed || run.Instance != first {
				t.Fatalf("retry: %+v (instance %q, want %q)", run, run.Instance, first)
			}
			if rec, err := g.eng.Session(run.Session); err != nil || rec.Instance != first {
				t.Fatalf("the retry's session is on %q, %v", rec.Instance, err)
			}
			list, err := g.eng.As("").ListInstances()
			if err != nil || len(list) != 1 || list[0].ID != first {
				t.Fatalf("instances after the run: %+v, %v", list, err)
			}
		})
	}
}

// copyingDemo is the demo agent configured with isolation copy.
type copyingDemo struct{ core.DemoResolver }

func (r copyingDemo) Resolve(agent string) (harness.Harness, core.AgentSettings, error) {
	h, set, err := r.DemoResolver.Resolve(agent)
	set.Isolation = core.IsolationCopy
	return h, set, err
}

// TestInPlaceRunIgnoresTheAgentsIsolation: a workflow that names no
// isolation runs in place even when its agent's sessions default to a
// copy: the workflow file says where its steps run.
func TestInPlaceRunIgnoresTheAgentsIsolation(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	g := newRig(t, map[string]string{"here.toml": flow(`
[[steps]]
key = "write"
exec = "echo made > made.txt"
`)})
	g.close()
	e, err := core.Open(g.ws, core.Options{Agents: copyingDemo{core.DemoResolver{Demo: &harness.Demo{Wait: 10 * time.Millisecond}}}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(e, Options{Finder: Finder{Workspace: g.ws, Trust: trusted}})
	g.eng, g.r = e, r
	run, err := g.run(StartRequest{Workflow: "here", Input: json.RawMessage(`{"id":"r1"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Completed || run.Instance != "" {
		t.Fatalf("run %+v: want completed in place", run)
	}
	if b, err := os.ReadFile(filepath.Join(g.ws, "made.txt")); err != nil || string(b) != "made\n" {
		t.Fatalf("the workspace's made.txt = %q, %v", b, err)
	}
}
