package core

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal/docker"
)

// TestChildDockerSession is the child of TestDockerContainerOutlivesKill9
// (run only as a child): a continuous Docker session's agent writes a file
// in the container's /tmp, then the child waits to be killed.
func TestChildDockerSession(t *testing.T) {
	ws, img := os.Getenv("ATELIER_DOCKER_CHILD_WS"), os.Getenv("ATELIER_DOCKER_CHILD_IMAGE")
	if ws == "" {
		t.Skip("helper process for TestDockerContainerOutlivesKill9")
	}
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "touch /tmp/x"})}},
	}}
	r := openRig(t, ws, MapResolver{"m": m})
	id := r.create(CreateOptions{Agent: "m", AutoStart: true, Approval: PolicyAuto, Mode: sessions.Continuous,
		Execution: "docker", Image: img}).ID
	r.status(id, sessions.Waiting)
	fmt.Printf("ready %s\n", id)
	select {}
}

// TestDockerContainerOutlivesKill9: after the engine running a Docker
// session is killed with SIGKILL, the next engine's first command for the
// session runs in the container the dead one left (its files are there),
// and the session never has two containers.
func TestDockerContainerOutlivesKill9(t *testing.T) {
	img := dockerImage(t)
	ws := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildDockerSession$")
	cmd.Env = append(os.Environ(), "ATELIER_DOCKER_CHILD_WS="+ws, "ATELIER_DOCKER_CHILD_IMAGE="+img)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				ready <- id
			}
		}
		close(ready)
	}()
	var id string
	select {
	case id = <-ready:
	case <-time.After(60 * time.Second):
	}
	// Wait reports the SIGKILL: the kill is the point.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	if id == "" {
		t.Fatalf("the child's session never ran its command; stderr:\n%s", stderr.String())
	}
	eng, err := docker.NewEngine(docker.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
	}()
	containers := func() []string {
		t.Helper()
		list, err := eng.Client().ContainerList(context.Background(), client.ContainerListOptions{
			All: true, Filters: make(client.Filters).Add("label", docker.LabelSession+"="+id),
		})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range list.Items {
			ids = append(ids, c.ID)
		}
		return ids
	}
	left := containers()
	if len(left) != 1 {
		t.Fatalf("the killed engine left %d containers: %v", len(left), left)
	}
	t.Cleanup(func() {
		// A failed run leaves nothing behind.
		for _, c := range containers() {
			if _, err := eng.Client().ContainerRemove(context.Background(), c, client.ContainerRemoveOptions{Force: true}); err != nil {
				t.Error(err)
			}
		}
	})

	r := openRig(t, ws, MapResolver{"m": &scripted.Model{}})
	res, err := r.e.Exec(context.Background(), id, ExecCommand{Shell: "ls /tmp/x"})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("the file written before the kill: %+v, %v", res, err)
	}
	if now := containers(); len(now) != 1 || now[0] != left[0] {
		t.Fatalf("containers %v, want only the one left behind %s", now, left[0])
	}
	closeEngine(t, r.e)
	if now := containers(); len(now) != 0 {
		t.Fatalf("containers after the engine closed: %v", now)
	}
}

// TestDockerPassiveExecSharesTheOwnersContainer: a command run through a
// passive engine (`atelier sessions exec`) while another engine runs the
// session runs in that session's container, and closing the passive engine
// leaves the container to its owner.
func TestDockerPassiveExecSharesTheOwnersContainer(t *testing.T) {
	img := dockerImage(t)
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "touch /tmp/x"})}},
	}}
	r := newRig(t, MapResolver{"m": m})
	id := r.create(CreateOptions{Agent: "m", AutoStart: true, Approval: PolicyAuto, Mode: sessions.Continuous,
		Execution: "docker", Image: img}).ID
	r.status(id, sessions.Waiting)
	ctx := context.Background()
	owned, err := r.e.SessionEnv(id)
	if err != nil {
		t.Fatal(err)
	}
	container := owned.(*docker.Env).ContainerID()

	p, err := Open(r.ws, Options{Passive: true, Agents: MapResolver{"m": &scripted.Model{}}, Containers: testContainers})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Exec(ctx, id, ExecCommand{Shell: "ls /tmp/x"})
	if err != nil || res.ExitCode != 0 {
		closeEngine(t, p)
		t.Fatalf("the passive engine's command did not run in the session's container: %+v, %v", res, err)
	}
	closeEngine(t, p)
	res, err = r.e.Exec(ctx, id, ExecCommand{Shell: "ls /tmp/x"})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("the owner's container after the passive engine closed: %+v, %v", res, err)
	}
	if now := owned.(*docker.Env).ContainerID(); now != container {
		t.Fatalf("the owner's container changed from %s to %s", container, now)
	}
}
