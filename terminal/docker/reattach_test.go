package docker

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/atelier-studio/atelier/terminal"
)

// sessionContainers lists every container, running or not, labelled with
// the session and workspace of cfg: what `docker ps -a --filter label=...`
// shows.
func sessionContainers(t *testing.T, eng *Engine, cfg Config) []string {
	t.Helper()
	list, err := eng.cli.ContainerList(context.Background(), client.ContainerListOptions{
		All: true,
		Filters: make(client.Filters).
			Add("label", LabelSession+"="+cfg.SessionID).
			Add("label", LabelWorkspace+"="+cfg.Workspace),
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

// removeAtEnd removes the session's containers when the test ends, in case
// it failed before a Close that would have.
func removeAtEnd(t *testing.T, eng *Engine, cfg Config) {
	t.Helper()
	t.Cleanup(func() {
		for _, id := range sessionContainers(t, eng, cfg) {
			if err := eng.remove(context.Background(), id); err != nil {
				t.Error(err)
			}
		}
	})
}

// sameSession makes another environment for the session of cfg (what the
// next process makes after the first one was killed), closed at the end.
func sameSession(t *testing.T, eng *Engine, cfg Config) *Env {
	t.Helper()
	env, err := eng.NewEnv(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return env
}

// run runs a shell command that must succeed and returns its stdout.
func run(t *testing.T, env *Env, cmd string) string {
	t.Helper()
	res, err := env.Exec(context.Background(), terminal.ExecRequest{ShellCommand: cmd})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%s: %+v, %v", cmd, res, err)
	}
	return res.Stdout
}

// started waits until a process whose command line holds needle runs in
// env's container: a Spawn returns before its process is there.
func started(t *testing.T, env *Env, needle string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for leftovers(t, env, needle) == "" {
		if time.Now().After(deadline) {
			t.Fatalf("%q did not start", needle)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReattachAfterCrash: the environment a new process makes for a
// session whose process died uses the container that process left (its
// files are there), makes no second one, and kills the commands the dead
// process left running in it.
func TestReattachAfterCrash(t *testing.T) {
	eng := needEngine(t)
	first := newEnv(t, eng, nil)
	run(t, first, "echo kept > /tmp/x")
	left, err := first.Spawn(context.Background(), []string{"sh", "-c", "sleep 1251"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	started(t, first, "sleep 1251")
	// The first process dies here: nothing closes its environment.
	next := sameSession(t, eng, first.Config())
	if got := run(t, next, "cat /tmp/x"); got != "kept\n" {
		t.Fatalf("the file written before the crash: %q", got)
	}
	if next.ContainerID() != first.ContainerID() || !next.found {
		t.Fatalf("container %s, want the one left behind %s", next.ContainerID(), first.ContainerID())
	}
	if ids := sessionContainers(t, eng, first.Config()); len(ids) != 1 {
		t.Fatalf("the session has %d containers: %v", len(ids), ids)
	}
	if code, err := left.Wait(); code != 137 || err != nil {
		t.Fatalf("the dead process's command: %d, %v; want it killed (137)", code, err)
	}
	if l := leftovers(t, next, "sleep 1251"); l != "" {
		t.Fatalf("the dead process's command still runs: %q", l)
	}
	// Close removes the reattached container like one it made.
	if err := next.Close(); err != nil {
		t.Fatal(err)
	}
	if ids := sessionContainers(t, eng, first.Config()); len(ids) != 0 {
		t.Fatalf("containers left after Close: %v", ids)
	}
}

// TestReattachReplacesAnotherConfiguration: a container of the session made
// with another configuration, or that stopped, is removed and a new one
// made; the session never has two.
func TestReattachReplacesAnotherConfiguration(t *testing.T) {
	eng := needEngine(t)
	ctx := context.Background()
	alias := "atelier-test-busybox:reattach-" + randomHex(4)
	if _, err := eng.cli.ImageTag(ctx, client.ImageTagOptions{Source: testImage(), Target: alias}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := eng.cli.ImageRemove(context.Background(), alias, client.ImageRemoveOptions{Force: true}); err != nil {
			t.Error(err)
		}
	})
	tests := []struct {
		name  string
		first func(*Config)
		// change turns the first environment's configuration (and the
		// engine) into what the next one sees.
		change func(t *testing.T, first *Env, next *Config)
	}{
		{"another image", nil, func(_ *testing.T, _ *Env, c *Config) { c.Image = alias }},
		{"the image's name now stands for another image", func(c *Config) { c.Image = alias }, func(t *testing.T, first *Env, _ *Config) {
			// The new image is the container without /tmp/x.
			run(t, first, "rm /tmp/x")
			if _, err := eng.cli.ContainerCommit(ctx, first.ContainerID(), client.ContainerCommitOptions{Reference: alias}); err != nil {
				t.Fatal(err)
			}
			run(t, first, "touch /tmp/x")
		}},
		{"read-only", nil, func(_ *testing.T, _ *Env, c *Config) { c.ReadOnly = true }},
		{"network", nil, func(_ *testing.T, _ *Env, c *Config) { c.Network = "host" }},
		{"user", nil, func(_ *testing.T, _ *Env, c *Config) { c.User = "12346:12346" }},
		{"env", nil, func(_ *testing.T, _ *Env, c *Config) { c.Env = []string{"A=2"} }},
		{"stopped", nil, func(t *testing.T, first *Env, _ *Config) {
			if _, err := eng.cli.ContainerKill(ctx, first.ContainerID(), client.ContainerKillOptions{Signal: "KILL"}); err != nil {
				t.Fatal(err)
			}
		}},
		{"workspace folder made again", nil, func(t *testing.T, first *Env, _ *Config) {
			ws := first.Config().Workspace
			if err := os.RemoveAll(ws); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(ws, 12345, 12345); err != nil && os.Getuid() == 0 {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first := newEnv(t, eng, tc.first)
			run(t, first, "touch /tmp/x")
			old := first.ContainerID()
			cfg := first.Config()
			tc.change(t, first, &cfg)
			next := sameSession(t, eng, cfg)
			if got := run(t, next, "test -e /tmp/x && echo reused || echo new"); got != "new\n" {
				t.Fatalf("the next environment got the old container: %q", got)
			}
			if next.ContainerID() == old || next.found {
				t.Fatal("the old container was reused")
			}
			if exists, _ := containerState(t, eng, old); exists {
				t.Fatal("the old container is still there")
			}
			if ids := sessionContainers(t, eng, cfg); len(ids) != 1 {
				t.Fatalf("the session has %d containers: %v", len(ids), ids)
			}
		})
	}
}

// TestFirstUseAtOnce: environments of one session that start at the same
// moment (the process that runs it and short commands beside it) end up in
// one container.
func TestFirstUseAtOnce(t *testing.T) {
	eng := needEngine(t)
	first := newEnv(t, eng, nil)
	removeAtEnd(t, eng, first.Config())
	envs := []*Env{first}
	for range 3 {
		guest := sameSession(t, eng, first.Config())
		guest.AsGuest(true)
		envs = append(envs, guest)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(envs))
	for i, env := range envs {
		wg.Go(func() {
			_, errs[i] = env.Exec(context.Background(), terminal.ExecRequest{Command: []string{"true"}})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("environment %d: %v", i, err)
		}
		if envs[i].ContainerID() != first.ContainerID() {
			t.Fatalf("environment %d uses %s, the first %s", i, envs[i].ContainerID(), first.ContainerID())
		}
	}
	if ids := sessionContainers(t, eng, first.Config()); len(ids) != 1 {
		t.Fatalf("the session has %d containers: %v", len(ids), ids)
	}
}

// TestGuestLeavesTheOwnersContainer: a guest (a short command beside the
// process that runs the session) shares the session's container whatever
// its own configuration, and its Close kills only what it started there.
// A container it had to make itself, it removes, unless another process
// runs the session (hosted): that one reattaches it.
func TestGuestLeavesTheOwnersContainer(t *testing.T) {
	eng := needEngine(t)
	owner := newEnv(t, eng, nil)
	run(t, owner, "touch /tmp/x")
	mine, err := owner.Spawn(context.Background(), []string{"sh", "-c", "sleep 1252"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	started(t, owner, "sleep 1252")
	cfg := owner.Config()
	cfg.Env = []string{"A=2"} // another configuration: not the guest's to judge
	guest := sameSession(t, eng, cfg)
	guest.AsGuest(true)
	run(t, guest, "test -e /tmp/x")
	if guest.ContainerID() != owner.ContainerID() {
		t.Fatal("the guest did not use the owner's container")
	}
	if _, err := guest.Spawn(context.Background(), []string{"sh", "-c", "sleep 1253"}, nil); err != nil {
		t.Fatal(err)
	}
	started(t, owner, "sleep 1253")
	if err := guest.Close(); err != nil {
		t.Fatal(err)
	}
	if _, running := containerState(t, eng, owner.ContainerID()); !running {
		t.Fatal("the guest's Close stopped the owner's container")
	}
	if l := leftovers(t, owner, "sleep 1253"); l != "" {
		t.Fatalf("the guest's process outlived its Close: %q", l)
	}
	if l := leftovers(t, owner, "sleep 1252"); l == "" {
		t.Fatal("the guest's Close killed the owner's process")
	}
	if err := mine.Kill(); err != nil {
		t.Fatal(err)
	}

	for _, hosted := range []bool{false, true} {
		alone := newEnv(t, eng, nil)
		removeAtEnd(t, eng, alone.Config())
		alone.AsGuest(hosted)
		run(t, alone, "sleep 1254 & true")
		if err := alone.Close(); err != nil {
			t.Fatal(err)
		}
		ids := sessionContainers(t, eng, alone.Config())
		if !hosted && len(ids) != 0 {
			t.Fatalf("a guest's own container outlived it: %v", ids)
		}
		if hosted {
			// Left for the process that runs the session, which reattaches it.
			owner := sameSession(t, eng, alone.Config())
			run(t, owner, "true")
			if len(ids) != 1 || owner.ContainerID() != ids[0] {
				t.Fatalf("a hosted guest's container: %v; the owner uses %s", ids, owner.ContainerID())
			}
			if l := leftovers(t, owner, "sleep 1254"); l != "" {
				t.Fatalf("the guest's process outlived its Close: %q", l)
			}
		}
	}
}

// TestForeignContainerWithTheSessionsName: a container that holds the
// session's container name without its labels (made by hand) is neither
// used nor removed, and the error says what is in the way.
func TestForeignContainerWithTheSessionsName(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, nil)
	ctx := context.Background()
	name := env.Config().containerName()
	made, err := eng.cli.ContainerCreate(ctx, client.ContainerCreateOptions{Name: name,
		Config: &container.Config{Image: testImage(), Cmd: []string{"true"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := eng.remove(context.Background(), made.ID); err != nil {
			t.Error(err)
		}
	})
	_, err = env.Exec(ctx, terminal.ExecRequest{Command: []string{"true"}})
	if !errors.Is(err, errNameTaken) || !strings.Contains(err.Error(), name) {
		t.Fatalf("got %v, want errNameTaken naming %s", err, name)
	}
	if exists, _ := containerState(t, eng, made.ID); !exists {
		t.Fatal("the foreign container was removed")
	}
}
