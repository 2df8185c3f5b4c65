package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/host"
	"github.com/atelier-studio/atelier/internal/poll"
)

// TestServeRestart: `serve --restart` with no host starts one; with one
// running it stops it (its lock freed, its process gone) and starts
// another that answers, of this build, which has the sessions the first
// one had. --restart goes with none of --stop, --status, --detach.
func TestServeRestart(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	r := b.run("serve", "--restart", "--json").want(t, ExitOK)
	var first serveStatusOut
	if err := json.Unmarshal([]byte(r.out), &first); err != nil || !first.Running || first.PID <= 0 {
		t.Fatalf("serve --restart with no host: %+v, %v\n%s", first, err, r.out)
	}
	if st := b.hostStatus(); !st.Running || st.PID != first.PID {
		t.Fatalf("after --restart with no host: %+v, want pid %d", st, first.PID)
	}
	resp, err := unixClient(first.Socket).Post("http://atelier/v1/sessions", "application/json", strings.NewReader(`{"task":"kept across the hand-over"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID string `json:"id"`
	}
	derr := json.NewDecoder(resp.Body).Decode(&created)
	if err := resp.Body.Close(); err != nil || derr != nil || resp.StatusCode != http.StatusCreated || created.ID == "" {
		t.Fatalf("create a session on the first host: %d, %v, %v", resp.StatusCode, derr, err)
	}

	r = b.run("serve", "--restart").want(t, ExitOK)
	second := b.hostStatus()
	if !second.Running || second.PID == first.PID || second.Socket != first.Socket || second.Version != first.Version {
		t.Fatalf("after --restart: %+v (the first host: %+v)", second, first)
	}
	if !strings.Contains(r.out, "stopped the engine") || !strings.Contains(r.out, strconv.Itoa(first.PID)) ||
		!strings.Contains(r.out, "runs in process "+strconv.Itoa(second.PID)) {
		t.Errorf("serve --restart says:\n%s", r.out)
	}
	poll.Until(t, "the first host's process to end", func() bool {
		return errors.Is(syscall.Kill(first.PID, 0), syscall.ESRCH)
	})
	if code, err := unixGet(t, second.Socket, "/v1/sessions/"+created.ID); err != nil || code != http.StatusOK {
		t.Fatalf("the session on the new host: %d, %v", code, err)
	}
	var health struct {
		Version string `json:"version"`
		PID     int    `json:"pid"`
	}
	resp, err = unixClient(second.Socket).Get("http://atelier/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	derr = json.NewDecoder(resp.Body).Decode(&health)
	if err := resp.Body.Close(); err != nil || derr != nil || health.PID != second.PID || health.Version != second.Version {
		t.Fatalf("the new host's health: %+v, %v, %v (status %+v)", health, derr, err, second)
	}

	for _, other := range []string{"--stop", "--status", "--detach"} {
		b.run("serve", "--restart", other).want(t, ExitUsage)
	}
	if st := b.hostStatus(); st.PID != second.PID {
		t.Fatalf("a refused --restart changed the host: %+v, want pid %d", st, second.PID)
	}
	b.run("serve", "--stop").want(t, ExitOK)
}

// hostOfBuild hosts a new workspace's engine in this process, reporting
// version as its build, until the test ends; it returns the workspace.
func hostOfBuild(t *testing.T, version string) string {
	t.Helper()
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	ended := make(chan error, 1)
	go func() {
		ended <- host.Run(ctx, host.Options{
			Workspace: ws,
			Open: func(ws string) (*core.Engine, error) {
				return core.Open(ws, core.Options{Agents: core.DemoResolver{Demo: &harness.Demo{}}, NoHistory: true})
			},
			Handler: func(e *core.Engine, _ func() func()) http.Handler {
				return api.NewServer(e, api.Options{Version: version})
			},
			IdleExit: -1,
			Version:  version,
			Ready:    func(host.Record) { close(ready) },
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-ended; err != nil {
			t.Error(err)
		}
	})
	select {
	case <-ready:
	case err := <-ended:
		t.Fatalf("the host ended before it was ready: %v", err)
	}
	return ws
}

// TestHostBuildNotice: a command that finds a host of another build says
// so on standard error, in one line, once per process however often it
// reaches the host; a host of its own build gets no notice.
func TestHostBuildNotice(t *testing.T) {
	isolate(t)
	rt, err := os.MkdirTemp("", "rt") // short: socket paths have a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(rt); err != nil {
			t.Error(err)
		}
	})
	t.Setenv("XDG_RUNTIME_DIR", rt)
	saved := hostBuild
	t.Cleanup(func() { hostBuild = saved })

	cases := []struct {
		name, build string
		want        string // the notice, "" for none
	}{
		{"another build", "0.0.1-older", host.BuildNotice("0.0.1-older", version())},
		{"this build", version(), ""},
	}
	for _, c := range cases {
		hostBuild = &buildNotice{}
		ws := hostOfBuild(t, c.build)
		var out, errb bytes.Buffer
		s := &streams{in: strings.NewReader(""), out: &out, err: &errb, env: env{getenv: os.Getenv}}
		for range 3 {
			hc := s.hostClient(context.Background(), ws)
			if hc == nil {
				t.Fatalf("%s: no client of the host", c.name)
			}
			hc.CloseIdle()
		}
		want := ""
		if c.want != "" {
			want = "atelier: notice: " + c.want + "\n"
			if !strings.Contains(c.want, "0.0.1-older") || !strings.Contains(c.want, "atelier serve --restart") {
				t.Fatalf("the notice names neither build nor the restart: %q", c.want)
			}
		}
		if errb.String() != want || out.Len() != 0 {
			t.Errorf("%s: stderr %q, stdout %q; want stderr %q", c.name, errb.String(), out.String(), want)
		}
	}
}
