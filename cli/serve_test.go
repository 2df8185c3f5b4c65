package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/internal/poll"
)

// The tests of this file run `atelier serve` as real processes: detached
// hosts, a foreground one, and clients that find them through the runtime
// directory (a short XDG_RUNTIME_DIR of the sandbox's own).

// serveStatusOut is what `serve --status --json` prints.
type serveStatusOut struct {
	Running   bool       `json:"running"`
	PID       int        `json:"pid"`
	Socket    string     `json:"socket"`
	Version   string     `json:"version"`
	StartedAt *time.Time `json:"started_at"`
	Workspace string     `json:"workspace"`
	KeptAlive []string   `json:"kept_alive"`
}

// newServeSandbox is a sandbox with a runtime directory of its own; its
// cleanup stops any host still running there.
func newServeSandbox(t *testing.T) *sandbox {
	t.Helper()
	b := newSandbox(t)
	rt, err := os.MkdirTemp("", "rt") // short: socket paths have a length limit
	if err != nil {
		t.Fatal(err)
	}
	b.env = append(b.env, "XDG_RUNTIME_DIR="+rt)
	t.Cleanup(func() {
		if st := b.hostStatus(); st.Running && st.PID > 0 {
			_ = syscall.Kill(st.PID, syscall.SIGKILL) // a test that failed midway: no host outlives it
		}
		if err := os.RemoveAll(rt); err != nil {
			t.Error(err)
		}
	})
	return b
}

func (b *sandbox) hostStatus() serveStatusOut {
	b.t.Helper()
	r := b.run("serve", "--status", "--json").want(b.t, ExitOK)
	var st serveStatusOut
	if err := json.Unmarshal([]byte(r.out), &st); err != nil {
		b.t.Fatalf("serve --status --json: %v\n%s", err, r.out)
	}
	return st
}

// detach starts a detached host and returns its status.
func (b *sandbox) detach(extra ...string) serveStatusOut {
	b.t.Helper()
	b.stopHost() // one a command started before
	r := b.run(append([]string{"serve", "--detach", "--json"}, extra...)...).want(b.t, ExitOK)
	var st serveStatusOut
	if err := json.Unmarshal([]byte(r.out), &st); err != nil || !st.Running || st.PID <= 0 {
		b.t.Fatalf("serve --detach --json: %+v, %v\n%s", st, err, r.out)
	}
	return st
}

// unixGet is `curl --unix-socket SOCKET http://atelier/PATH`.
func unixGet(t *testing.T, socket, path string) (int, error) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}}}
	resp, err := c.Get("http://atelier" + path)
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, resp.Body.Close()
}

// TestServeDetachStatusStop: `serve --detach` starts a host that --status
// reports and that answers over its socket; a second host is refused with
// exit 1 naming the first's pid; --stop stops it and frees the workspace.
func TestServeDetachStatusStop(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	if st := b.hostStatus(); st.Running {
		t.Fatalf("a host before any started: %+v", st)
	}
	started := b.detach()
	st := b.hostStatus()
	if !st.Running || st.PID != started.PID || st.Socket != started.Socket || st.Version == "" || st.StartedAt == nil ||
		st.Workspace == "" || !strings.HasPrefix(st.Socket, filepath.Dir(filepath.Dir(st.Socket))) {
		t.Fatalf("serve --status --json: %+v (started %+v)", st, started)
	}
	if code, err := unixGet(t, st.Socket, "/v1/health"); err != nil || code != http.StatusOK {
		t.Fatalf("GET /v1/health over %s: %d, %v", st.Socket, code, err)
	}
	eng, err := os.ReadFile(filepath.Join(b.ws, ".state", "engine.json"))
	if err != nil || !strings.Contains(string(eng), strconv.Itoa(st.PID)) {
		t.Errorf(".state/engine.json: %s, %v", eng, err)
	}
	text := b.run("serve", "--status").want(t, ExitOK)
	if !strings.Contains(text.out, strconv.Itoa(st.PID)) || !strings.Contains(text.out, st.Socket) {
		t.Errorf("serve --status:\n%s", text.out)
	}

	for _, args := range [][]string{{"serve"}, {"serve", "--detach"}} {
		r := b.run(args...).want(t, ExitFailed)
		if !strings.Contains(r.err, strconv.Itoa(st.PID)) {
			t.Errorf("%s with a host running says %q, want its pid %d", strings.Join(args, " "), r.err, st.PID)
		}
	}

	b.run("serve", "--stop").want(t, ExitOK)
	if after := b.hostStatus(); after.Running {
		t.Fatalf("after --stop: %+v", after)
	}
	if _, err := os.Lstat(st.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is left after --stop (%v)", err)
	}
	if _, err := os.Lstat(filepath.Join(b.ws, ".state", "engine.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".state/engine.json is left after --stop (%v)", err)
	}
	if log, err := os.ReadFile(filepath.Join(b.ws, ".state", "engine.log")); err != nil || !strings.Contains(string(log), "hosting the engine") {
		t.Errorf(".state/engine.log: %q, %v", log, err)
	}
	r := b.run("serve", "--stop").want(t, ExitOK)
	if !strings.Contains(r.out, "no process") {
		t.Errorf("--stop with no host says %q", r.out)
	}
}

// TestServeKilledHost: after kill -9 of a host, --status says nothing runs
// and a new host takes over (the dead one's socket file replaced).
func TestServeKilledHost(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	first := b.detach()
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "the killed host's lock to free", func() bool { return !b.hostStatus().Running })
	if _, err := os.Lstat(first.Socket); err != nil {
		t.Logf("the killed host's socket is gone already (%v)", err)
	}
	second := b.detach()
	if second.PID == first.PID || second.Socket != first.Socket {
		t.Fatalf("the new host: %+v (the killed one: %+v)", second, first)
	}
	if code, err := unixGet(t, second.Socket, "/v1/health"); err != nil || code != http.StatusOK {
		t.Fatalf("GET /v1/health on the new host: %d, %v", code, err)
	}
	b.run("serve", "--stop").want(t, ExitOK)
}

// TestServeIdleExit: a host with nothing to do and no client exits by
// itself after --idle-exit, and sleeps meanwhile (no CPU spent polling).
func TestServeIdleExit(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	st := b.detach("--idle-exit", "2s")
	before, ok := cpuTicks(st.PID)
	time.Sleep(time.Second)
	if after, ok2 := cpuTicks(st.PID); ok && ok2 && after-before > 50 {
		t.Errorf("the idle host used %d clock ticks of CPU in a second", after-before)
	}
	poll.Until(t, "the idle host to exit", func() bool { return !b.hostStatus().Running })
}

// TestServeForeground: `serve` hosts in the foreground until it is told to
// stop (SIGTERM, as --stop sends), then exits 0 and frees the workspace.
func TestServeForeground(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	p := b.start("serve", "--idle-exit", "0")
	poll.Until(t, "the foreground host", func() bool { return b.hostStatus().Running })
	if st := b.hostStatus(); st.PID != p.cmd.Process.Pid {
		t.Fatalf("the host is %+v, want pid %d", st, p.cmd.Process.Pid)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := p.wait(t).want(t, ExitOK)
	if !strings.Contains(r.err, "hosting the engine") || !strings.Contains(r.err, "stopping") {
		t.Errorf("the foreground host's log:\n%s", r.err)
	}
	if st := b.hostStatus(); st.Running {
		t.Errorf("after SIGTERM: %+v", st)
	}
}

// cpuTicks reads a process's user and system CPU time in clock ticks.
func cpuTicks(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The fields after the command name (which may hold spaces): state is
	// the first, utime the 12th, stime the 13th.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b)[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.Atoi(f[11])
	s, err2 := strconv.Atoi(f[12])
	return u + s, err1 == nil && err2 == nil
}

// TestServeDetachFails: a detached host that cannot start (a broken
// configuration) makes `serve --detach` exit 1 with the end of its log.
func TestServeDetachFails(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	b.configure("default_agent = [\n")
	r := b.run("serve", "--detach").want(t, ExitFailed)
	if !strings.Contains(r.err, "exited before it answered") || !strings.Contains(r.err, "engine.log") ||
		!strings.Contains(r.err, "config.toml") {
		t.Errorf("serve --detach with a broken configuration says:\n%s", r.err)
	}
	if st := b.hostStatus(); st.Running {
		t.Errorf("a host runs: %+v", st)
	}
}

// TestServeIdleExitFromConfig: without --idle-exit, [engine] idle_exit in
// the configuration sets the grace.
func TestServeIdleExitFromConfig(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	b.configure(quickAgent + "\n[engine]\nidle_exit = \"2s\"\n")
	b.detach()
	poll.Until(t, "the idle host to exit after the configured 2s", func() bool { return !b.hostStatus().Running })
}

// TestServeStopWaitsForTheProcess: `serve --stop` returns once the host's
// process has exited, not only once its lock is free: until it exits it
// holds .state/engine.log open, and an unmount or a read-only remount of
// the workspace right after the stop failed with "device or resource
// busy" (TestBinaryListReadOnlyWorkspace, under load).
func TestServeStopWaitsForTheProcess(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	for range 3 {
		st := b.detach()
		b.run("serve", "--stop").want(t, ExitOK)
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", st.PID))
		if err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i < 0 || !strings.HasPrefix(strings.TrimSpace(string(stat[i+1:])), "Z") {
				t.Fatalf("serve --stop returned while host %d still runs: %s", st.PID, stat)
			}
		}
	}
}
