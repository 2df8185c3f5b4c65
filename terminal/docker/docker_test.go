package docker

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/atelier-studio/atelier/internal/expect"
	"github.com/atelier-studio/atelier/terminal"
)

func TestDockerExec(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, nil)
	if env.ContainerID() != "" {
		t.Fatal("a container exists before the first command")
	}
	ctx := context.Background()
	tests := []struct {
		name        string
		req         terminal.ExecRequest
		code        int
		out, errOut string
	}{
		{"exit code and streams apart", terminal.ExecRequest{ShellCommand: "echo out; echo err >&2; exit 3"}, 3, "out\n", "err\n"},
		{"runs in the workspace at its host path", terminal.ExecRequest{Command: []string{"pwd"}}, 0, env.Config().Workspace + "\n", ""},
		{"env and stdin", terminal.ExecRequest{ShellCommand: `echo "$X"; cat`, Env: []string{"X=1"}, Stdin: []byte("in")}, 0, "1\nin", ""},
		{"missing program", terminal.ExecRequest{Command: []string{"no-such-program-xyz"}}, 127, "", "no-such-program-xyz"},
		{"signal is 128+n", terminal.ExecRequest{ShellCommand: "kill -TERM $$"}, 143, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := env.Exec(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != tc.code || res.Stdout != tc.out || !strings.Contains(res.Stderr, tc.errOut) {
				t.Fatalf("got code %d stdout %q stderr %q; want %d %q %q", res.ExitCode, res.Stdout, res.Stderr, tc.code, tc.out, tc.errOut)
			}
		})
	}
	id := env.ContainerID()
	res, err := eng.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Container
	if c.Config.Labels[LabelSession] != env.Config().SessionID || c.Config.Labels[LabelWorkspace] != env.Config().Workspace {
		t.Fatalf("labels %v", c.Config.Labels)
	}
	hc := c.HostConfig
	if hc.Privileged || len(hc.CapDrop) != 1 || !strings.EqualFold(strings.TrimPrefix(hc.CapDrop[0], "CAP_"), "ALL") ||
		len(hc.SecurityOpt) != 1 || !strings.HasPrefix(hc.SecurityOpt[0], "no-new-privileges") || hc.NetworkMode != "none" {
		t.Fatalf("container is not locked down: privileged %v capdrop %v secopt %v network %q", hc.Privileged, hc.CapDrop, hc.SecurityOpt, hc.NetworkMode)
	}
	// Dropped capabilities and no-new-privileges hold inside.
	out, err := env.Exec(ctx, terminal.ExecRequest{ShellCommand: "grep -E '^(CapEff|NoNewPrivs)' /proc/self/status"})
	if err != nil || !strings.Contains(out.Stdout, "CapEff:\t0000000000000000") || !strings.Contains(out.Stdout, "NoNewPrivs:\t1") {
		t.Fatalf("status inside: %+v, %v", out, err)
	}
	if _, err := env.Exec(ctx, terminal.ExecRequest{Command: []string{"true"}, Dir: "../.."}); !errors.Is(err, terminal.ErrBadRequest) {
		t.Fatalf("dir escaping the workspace: %v", err)
	}
	if env.ContainerID() != id {
		t.Fatal("the container changed between commands")
	}
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	if exists, _ := containerState(t, eng, id); exists {
		t.Fatal("Close left the container behind")
	}
	if _, err := env.Exec(ctx, terminal.ExecRequest{Command: []string{"true"}}); !errors.Is(err, terminal.ErrClosed) {
		t.Fatalf("exec after close: %v", err)
	}
}

func TestDockerFilesBelongToTheSessionUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the workspace to uid 12345")
	}
	eng := needEngine(t)
	env := newEnv(t, eng, func(c *Config) { c.User = "12345:12345" })
	res, err := env.Exec(context.Background(), terminal.ExecRequest{ShellCommand: "id -u; id -g; echo hi > made-inside"})
	if err != nil || res.ExitCode != 0 || res.Stdout != "12345\n12345\n" {
		t.Fatalf("got %+v, %v", res, err)
	}
	st, err := os.Stat(filepath.Join(env.Config().Workspace, "made-inside"))
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 12345 || sys.Gid != 12345 {
		t.Fatalf("file owned by %d:%d, want 12345:12345", sys.Uid, sys.Gid)
	}
}

func TestDockerReadOnlySession(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, func(c *Config) { c.ReadOnly = true })
	ws := env.Config().Workspace
	if err := os.WriteFile(filepath.Join(ws, "existing"), []byte("keep"), 0o666); err != nil {
		t.Fatal(err)
	}
	res, err := env.Exec(context.Background(), terminal.ExecRequest{ShellCommand: "cat existing; echo x > new; echo y >> existing"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 || res.Stdout != "keep" || !strings.Contains(res.Stderr, "Read-only file system") {
		t.Fatalf("got %+v", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the read-only session created a file")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "existing")); string(b) != "keep" {
		t.Fatalf("the read-only session changed a file: %q", b)
	}
}

func TestDockerNetworkNone(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, nil)
	res, err := env.Exec(context.Background(), terminal.ExecRequest{ShellCommand: "ls /sys/class/net"})
	if err != nil || res.ExitCode != 0 || strings.Fields(res.Stdout)[0] != "lo" || len(strings.Fields(res.Stdout)) != 1 {
		t.Fatalf("interfaces: %+v, %v", res, err)
	}
}

// leftovers lists the processes in the container whose command line holds
// needle.
func leftovers(t *testing.T, env *Env, needle string) string {
	t.Helper()
	res, err := env.Exec(context.Background(), terminal.ExecRequest{
		ShellCommand: `for d in /proc/[0-9]*; do tr '\0' ' ' < $d/cmdline 2>/dev/null; echo; done | grep -F "$N" | grep -v '^grep ' || true`,
		Env:          []string{"N=" + needle},
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(res.Stdout)
}

func TestDockerTimeoutAndCancelLeaveNothing(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, nil)
	for _, tc := range []struct {
		name string
		req  terminal.ExecRequest
	}{
		{"timeout", terminal.ExecRequest{ShellCommand: "echo started; sleep 1231 & setsid sleep 1232 & sleep 1233", Timeout: 500 * time.Millisecond}},
		{"cancel", terminal.ExecRequest{ShellCommand: "echo started; sleep 1231 & setsid sleep 1232 & sleep 1233"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.name == "cancel" {
				time.AfterFunc(500*time.Millisecond, cancel)
			}
			res, err := env.Exec(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if res.TimedOut != (tc.name == "timeout") || res.Cancelled != (tc.name == "cancel") || res.ExitCode != 137 || res.Stdout != "started\n" {
				t.Fatalf("got %+v", res)
			}
			if left := leftovers(t, env, "sleep 123"); left != "" {
				t.Fatalf("processes left in the container: %q", left)
			}
		})
	}
	id := env.ContainerID()
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	if exists, _ := containerState(t, eng, id); exists {
		t.Fatal("the container outlived the session")
	}
}

func TestDockerOutputCap(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, nil)
	res, err := env.Exec(context.Background(), terminal.ExecRequest{
		ShellCommand: "echo START; seq 1 20000; echo END; seq 1 3000 >&2",
		MaxOutput:    4096,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.StdoutTruncated || !res.StderrTruncated || !strings.HasPrefix(res.Stdout, "START\n1\n") || !strings.HasSuffix(res.Stdout, "20000\nEND\n") || len(res.Stdout) > 4200 {
		t.Fatalf("got stdout of %d bytes (truncated %v): %.60q...", len(res.Stdout), res.StdoutTruncated, res.Stdout)
	}
}

func TestDockerSpawnRoundTrip(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, nil)
	p, err := env.Spawn(context.Background(), []string{"sh", "-c", `while read l; do echo "out $l"; echo "err $l" >&2; done; exit 7`}, []string{"A=1"})
	if err != nil {
		t.Fatal(err)
	}
	out, errOut := bufio.NewReader(p.Stdout()), bufio.NewReader(p.Stderr())
	for _, msg := range []string{"one", "two"} {
		if _, err := io.WriteString(p.Stdin(), msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if line, err := out.ReadString('\n'); err != nil || line != "out "+msg+"\n" {
			t.Fatalf("stdout %q, %v", line, err)
		}
		if line, err := errOut.ReadString('\n'); err != nil || line != "err "+msg+"\n" {
			t.Fatalf("stderr %q, %v", line, err)
		}
	}
	if err := p.Stdin().Close(); err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(); err != nil || code != 7 {
		t.Fatalf("wait: %d, %v", code, err)
	}
	if rest, err := io.ReadAll(out); len(rest) != 0 || err != nil {
		t.Fatalf("after the end: %q, %v", rest, err)
	}

	// Kill and cancellation end the process and what it started.
	ctx, cancel := context.WithCancel(context.Background())
	killed, err := env.Spawn(context.Background(), []string{"sh", "-c", "sleep 1241 & sleep 1242"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, err := env.Spawn(ctx, []string{"sh", "-c", "sleep 1243 & sleep 1244"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := killed.Kill(); err != nil {
		t.Fatal(err)
	}
	cancel()
	for _, p := range []terminal.Process{killed, cancelled} {
		if code, err := p.Wait(); err != nil || code != 137 {
			t.Fatalf("wait after kill: %d, %v", code, err)
		}
	}
	if left := leftovers(t, env, "sleep 124"); left != "" {
		t.Fatalf("processes left: %q", left)
	}
}

func TestDockerShellResize(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, nil)
	p, err := env.Shell(context.Background(), terminal.Size{Cols: 80, Rows: 24}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}()
	r := expect.New(p)
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(p, s); err != nil {
			t.Fatal(err)
		}
	}
	send("stty size\n")
	r.WaitFor(t, "24 80")
	if err := p.Resize(terminal.Size{Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	send("stty size\n")
	r.WaitFor(t, "30 100")
	send("exit 5\n")
	if code, err := p.Wait(); err != nil || code != 5 {
		t.Fatalf("wait %d, %v", code, err)
	}
}

func TestDockerContainerCrashMidExec(t *testing.T) {
	eng := needEngine(t)
	env := newEnv(t, eng, nil)
	started := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := env.Exec(context.Background(), terminal.ExecRequest{
			ShellCommand: "echo started; sleep 30",
			OnChunk:      func(terminal.Chunk) { started <- struct{}{} },
		})
		done <- err
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the command did not start")
	}
	id := env.ContainerID()
	if _, err := eng.cli.ContainerKill(context.Background(), id, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !isGone(err) {
			t.Fatalf("got %v, want ErrContainerGone", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("exec did not notice its container died")
	}
	res, err := env.Exec(context.Background(), terminal.ExecRequest{Command: []string{"echo", "again"}})
	if err != nil || res.Stdout != "again\n" {
		t.Fatalf("the next command: %+v, %v", res, err)
	}
	if env.ContainerID() == id {
		t.Fatal("the dead container was reused")
	}
	if exists, _ := containerState(t, eng, id); exists {
		t.Fatal("the dead container was not removed")
	}
}
