package core

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal/docker"
)

// hostGit lends the test image (busybox, no git) the host's git: /usr and
// the dynamic loader, read-only. It skips where the host's git is not a
// dynamically linked x86-64 program found that way.
func hostGit(t *testing.T) docker.Config {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil || !strings.HasPrefix(git, "/usr/") {
		t.Skipf("the host's git (%s, %v) is not under /usr", git, err)
	}
	loader, err := filepath.EvalSymlinks("/lib64/ld-linux-x86-64.so.2")
	if err != nil {
		t.Skipf("no x86-64 loader to lend the container: %v", err)
	}
	return docker.Config{
		Mounts: []docker.Mount{{Source: "/usr", ReadOnly: true}, {Source: loader, Target: "/lib64/ld-linux-x86-64.so.2", ReadOnly: true}},
		Env:    []string{"PATH=/bin:/usr/bin", "LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu", "HOME=/tmp"},
	}
}

// TestDockerWorktreeInstance: a Docker session on a worktree instance has
// the instance as its workspace and the repository's git metadata mounted
// read-only at its own path: git status, diff and log work inside, writing
// the user's .git does not.
func TestDockerWorktreeInstance(t *testing.T) {
	img := dockerImage(t)
	ws := gitWorkspace(t)
	gitDir := filepath.Join(ws, ".git")
	m := &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{
		toolCall("w", "write_file", map[string]any{"path": "README.md", "content": "changed\n"}),
		toolCall("g", "exec", map[string]any{"command": "pwd; git status --short; git log --oneline | wc -l; git diff --stat"}),
		toolCall("ro", "exec", map[string]any{"command": "touch " + gitDir + "/planted; git add README.md"}),
	}}}}
	cfg := hostGit(t)
	e, err := Open(ws, Options{Agents: MapResolver{"a": m}, Workers: 2, Containers: docker.NewSessions(docker.EngineOptions{}, cfg)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEngine(t, e) })
	_, sub := e.Subscribe()
	r := &rig{t: t, ws: ws, e: e, sub: sub}
	s := r.create(CreateOptions{Agent: "a", Isolation: IsolationWorktree, AutoStart: true, Approval: PolicyAuto,
		Execution: "docker", Image: img})
	if got := r.status(s.ID, sessions.Ended); got.EndReason != sessions.Completed {
		t.Fatalf("session ended %+v", got)
	}
	dir, err := r.e.InstancePath(s.Instance)
	if err != nil {
		t.Fatal(err)
	}
	out := callsByID(t, r.e, s.ID)
	if g := out["g"].Output; !strings.HasPrefix(g, dir+"\n M README.md\n1\n README.md | 2 +-") {
		t.Fatalf("git inside the container: %q", g)
	}
	if ro := out["ro"].Output; !strings.Contains(ro, "Read-only file system") || strings.Contains(ro, "[exit code 0]") {
		t.Fatalf("writing the user's .git inside the container: %q", ro)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "planted")); !os.IsNotExist(err) {
		t.Fatalf("the container wrote the user's .git: %v", err)
	}
	st := exec.Command("git", "status", "--short")
	st.Dir = ws
	if b, err := st.CombinedOutput(); err != nil || len(b) != 0 {
		t.Fatalf("the workspace's git status: %q, %v", b, err)
	}
}
