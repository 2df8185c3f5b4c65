package docker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/terminal"
)

// TestDockerInstanceMounts: a session on an instance mounts the instance's
// folder as its workspace and more folders where it is told, read-only ones
// unwritable; its container belongs to its home workspace, whose Cleanup
// removes it, and is reattached, not replaced, by a second environment.
func TestDockerInstanceMounts(t *testing.T) {
	eng := needEngine(t)
	ctx := context.Background()
	home, meta := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(meta, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(meta, 0o777); err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, eng, func(c *Config) {
		c.Home = home
		c.Mounts = []Mount{{Source: meta, ReadOnly: true}}
	})
	inst := env.Config().Workspace
	res, err := env.Exec(ctx, terminal.ExecRequest{ShellCommand: "pwd; cat " + meta + "/HEAD; echo w > made; touch " + meta + "/x"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Stdout, inst+"\nref: refs/heads/main\n") || res.ExitCode == 0 || !strings.Contains(res.Stderr, "Read-only file system") {
		t.Fatalf("got %+v", res)
	}
	if _, err := os.Stat(filepath.Join(meta, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the read-only mount was written: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(inst, "made")); err != nil || string(b) != "w\n" {
		t.Fatalf("the instance folder was not the workspace: %q, %v", b, err)
	}
	again, err := eng.NewEnv(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := again.Close(); err != nil {
			t.Error(err)
		}
	}()
	if _, err := again.Exec(ctx, terminal.ExecRequest{Command: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
	if again.ContainerID() != env.ContainerID() {
		t.Fatalf("a second environment made container %s, not reattaching %s", again.ContainerID(), env.ContainerID())
	}
	removed, err := eng.Cleanup(ctx, home, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{env.ContainerID()}) {
		t.Fatalf("cleanup of the home workspace removed %v, want %s", removed, env.ContainerID())
	}
}
