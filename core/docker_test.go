package core

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/claude"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/internal/testreq"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal/docker"
)

// dockerImage returns the test image (built by .ci/setup.d/docker.sh), or
// skips (fails where docker is required) when no engine has it.
func dockerImage(t *testing.T) string {
	t.Helper()
	img := os.Getenv("ATELIER_TEST_DOCKER_IMAGE")
	if img == "" {
		img = "atelier-test-busybox:latest"
	}
	eng, err := docker.NewEngine(docker.EngineOptions{})
	testreq.Need(t, "docker", err == nil, "no Docker engine configured")
	defer func() {
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	testreq.Need(t, "docker", eng.Ping(ctx) == nil, "no Docker engine answers (run .ci/setup.d/docker.sh)")
	_, err = eng.Client().ImageInspect(ctx, img)
	testreq.Need(t, "docker", err == nil, "the test image "+img+" is missing (run .ci/setup.d/docker.sh)")
	return img
}

// spawner is an agent that runs a command through its host, as an agent
// CLI adapter starts its CLI.
type spawner struct{}

func (spawner) Name() string       { return "spawner" }
func (spawner) Caps() harness.Caps { return harness.Caps{Boundary: harness.TurnBoundary} }
func (spawner) Turn(ctx context.Context, req harness.TurnRequest, out harness.Emitter, h harness.Host) (harness.TurnResult, error) {
	p, err := h.Spawn(ctx, []string{"sh", "-c", "test -d /usr/local/go && echo on-the-host || echo in-the-container"}, nil)
	if err != nil {
		return harness.TurnResult{}, err
	}
	b, _ := io.ReadAll(p.Stdout())
	if _, err := p.Wait(); err != nil {
		return harness.TurnResult{}, err
	}
	out.Text(strings.TrimSpace(string(b)))
	return harness.TurnResult{Stop: harness.StopEnd}, nil
}

// TestDockerSessionRunsToolsAndAgentsInItsContainer: a Docker session's
// exec tool and its agent's processes run in the session's container, and
// the container goes when the session ends.
func TestDockerSessionRunsToolsAndAgentsInItsContainer(t *testing.T) {
	img := dockerImage(t)
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "test -d /usr/local/go && echo host || echo container"})}},
	}}
	r := newRig(t, MapResolver{"m": m, "agent": spawner{}})
	id := r.create(CreateOptions{Agent: "m", AutoStart: true, Approval: PolicyAuto, Execution: "docker", Image: img}).ID
	r.status(id, sessions.Ended)
	msgs, _, _ := r.e.Transcript(id)
	if ts := tools(msgs); len(ts) != 1 || !strings.HasPrefix(ts[0].Output, "container") {
		t.Fatalf("exec ran where? %+v", ts)
	}
	id2 := r.create(CreateOptions{Agent: "agent", AutoStart: true, Execution: "docker", Image: img}).ID
	if s := r.status(id2, sessions.Ended); s.EndReason != sessions.Completed {
		t.Fatalf("%+v", s)
	}
	msgs, _, _ = r.e.Transcript(id2)
	if got := msgs[len(msgs)-1].Text(); got != "in-the-container" {
		t.Fatalf("the agent's process ran %q", got)
	}
}

// TestDockerImageWithoutTheAgentCLI: a claude session in an image without
// the claude CLI fails with a clear error, not a hang.
func TestDockerImageWithoutTheAgentCLI(t *testing.T) {
	img := dockerImage(t)
	a, err := claude.New(claude.Settings{StartTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, MapResolver{"claude": a})
	id := r.create(CreateOptions{Agent: "claude", AutoStart: true, Execution: "docker", Image: img}).ID
	s := r.status(id, sessions.Ended)
	t.Logf("error: %s", s.Error)
	if s.EndReason != sessions.Failed || !strings.Contains(s.Error, "not found") {
		t.Fatalf("ended %s: %q", s.EndReason, s.Error)
	}
}

// TestDockerNeedsABackend: an engine built without a container backend
// (Options.Containers) refuses a Docker session when it is created, with
// an error that says so, and makes nothing.
func TestDockerNeedsABackend(t *testing.T) {
	e, err := Open(t.TempDir(), Options{Agents: MapResolver{"m": &scripted.Model{}}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEngine(t, e) })
	_, err = e.Create(CreateOptions{Agent: "m", Instructions: "t", Execution: "docker", Image: "img:1"})
	if !errors.Is(err, ErrExecutionUnavailable) || !strings.Contains(err.Error(), "no container backend") {
		t.Fatalf("a Docker session with no backend: %v", err)
	}
	if l := e.Sessions(); len(l) != 0 {
		t.Fatalf("the refused create made %+v", l)
	}
}

// TestDockerCheckedAtCreate: with no Docker engine answering, a Docker
// session is refused at create, saying what to do, rather than accepted
// and failing after its first approval.
func TestDockerCheckedAtCreate(t *testing.T) {
	gone := docker.NewSessions(docker.EngineOptions{Host: "unix://" + filepath.Join(t.TempDir(), "no-docker.sock")}, docker.Config{})
	e, err := Open(t.TempDir(), Options{Agents: MapResolver{"m": &scripted.Model{}}, NoHistory: true, Containers: gone})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEngine(t, e) })
	_, err = e.Create(CreateOptions{Agent: "m", Instructions: "t", Execution: "docker", Image: "img:1"})
	if !errors.Is(err, ErrExecutionUnavailable) || !errors.Is(err, docker.ErrNoEngine) || !strings.Contains(err.Error(), "start the Docker engine") {
		t.Fatalf("a Docker session with no engine: %v", err)
	}
	if l := e.Sessions(); len(l) != 0 {
		t.Fatalf("the refused create made %+v", l)
	}
	if _, err := e.Create(CreateOptions{Agent: "m", Instructions: "t"}); err != nil {
		t.Fatalf("a local session: %v", err)
	}
}
