package host

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/teststate"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

func TestMain(m *testing.M) { teststate.Main(m) }

// shortDir returns a fresh folder with a short path, so socket paths stay
// under the limit whatever the test's name.
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(d); err != nil {
			t.Error(err)
		}
	})
	return d
}

func getenv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestRuntimeDir(t *testing.T) {
	xdg := shortDir(t)
	dir, err := RuntimeDir(getenv(map[string]string{"XDG_RUNTIME_DIR": xdg}))
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(xdg, "atelier") {
		t.Errorf("with XDG_RUNTIME_DIR: %s", dir)
	}
	fi, err := os.Lstat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
		t.Fatalf("the runtime directory is %v (%v), want a 0700 folder", fi.Mode(), err)
	}
	if _, err := RuntimeDir(getenv(map[string]string{"XDG_RUNTIME_DIR": xdg})); err != nil {
		t.Errorf("a second call: %v", err)
	}

	tmp := shortDir(t)
	for _, env := range []map[string]string{{"TMPDIR": tmp}, {"TMPDIR": tmp, "XDG_RUNTIME_DIR": "relative/run"}} {
		dir, err := RuntimeDir(getenv(env))
		if want := filepath.Join(tmp, "atelier-"+strconv.Itoa(os.Getuid())); err != nil || dir != want {
			t.Errorf("with %v: %s, %v; want %s", env, dir, err, want)
		}
	}
}

// TestRuntimeDirTooDeep: a runtime or temporary folder so deep that a
// socket in it would pass the system's limit falls back to /tmp, so a host
// can still be served and found there, and the paths laid out fit.
func TestRuntimeDirTooDeep(t *testing.T) {
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 80))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("/tmp", "atelier-"+strconv.Itoa(os.Getuid()))
	for _, env := range []map[string]string{{"XDG_RUNTIME_DIR": deep}, {"TMPDIR": deep}} {
		dir, err := RuntimeDir(getenv(env))
		if err != nil || dir != want {
			t.Fatalf("with %v: %s, %v; want %s", env, dir, err, want)
		}
		if _, err := pathsIn(dir, t.TempDir(), "id"); err != nil {
			t.Fatalf("the fallback's paths: %v", err)
		}
	}
}

// TestRuntimeDirRefused: a runtime directory that is not this user's alone
// is refused, never used or repaired.
func TestRuntimeDirRefused(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"symlink", func(t *testing.T, dir string) {
			target := shortDir(t)
			if err := os.Chmod(target, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, dir); err != nil {
				t.Fatal(err)
			}
		}},
		{"open to others", func(t *testing.T, dir string) {
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file", func(t *testing.T, dir string) {
			if err := os.WriteFile(dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"foreign owner", func(t *testing.T, dir string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give a folder to another user")
			}
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(dir, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			xdg := shortDir(t)
			tc.setup(t, filepath.Join(xdg, "atelier"))
			_, err := RuntimeDir(getenv(map[string]string{"XDG_RUNTIME_DIR": xdg}))
			if tc.name == "a file" {
				if err == nil {
					t.Fatal("a file as the runtime directory was accepted")
				}
				return
			}
			if !errors.Is(err, ErrUnsafeRuntimeDir) {
				t.Fatalf("got %v, want ErrUnsafeRuntimeDir", err)
			}
		})
	}
}

func TestSocketPathLimit(t *testing.T) {
	long := "/" + strings.Repeat("d", 80)
	_, err := pathsIn(long, "/ws", "0123456789abcdef0123456789abcdef")
	if err == nil || !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") {
		t.Fatalf("a %d-byte folder: %v", len(long), err)
	}
	p, err := pathsIn("/run/user/1000/atelier", "/ws", "0123456789abcdef0123456789abcdef")
	if err != nil || len(p.Key) != 32 || filepath.Base(p.Socket) != p.Key+".sock" {
		t.Fatalf("%+v, %v", p, err)
	}
}

// TestKeyCopiedWorkspace: a copied workspace (same state id) gets a host of
// its own; one workspace always the same.
func TestKeyCopiedWorkspace(t *testing.T) {
	id := "0123456789abcdef0123456789abcdef"
	if key(id, "/a") == key(id, "/b") {
		t.Error("two workspaces with one state id share a host")
	}
	if key("", "/a") == key(id, "/a") {
		t.Error("a state without an id shares the host of one with an id")
	}
}

func TestBusy(t *testing.T) {
	at := time.Now().Add(time.Hour)
	cases := []struct {
		name string
		snap core.Snapshot
		want bool
	}{
		{"empty", core.Snapshot{}, false},
		{"active", snap(sessions.Session{ID: "a", Status: sessions.Running, SubState: sessions.Active}), true},
		{"resumable", snap(sessions.Session{ID: "a", Status: sessions.Running, SubState: sessions.Resumable}), true},
		{"parked on an approval", withIt(snap(sessions.Session{ID: "a", Status: sessions.Running, SubState: sessions.Parked}),
			sessions.Interaction{Kind: sessions.Approval}), false},
		{"parked on an event", withIt(snap(sessions.Session{ID: "a", Status: sessions.Running, SubState: sessions.Parked}),
			sessions.Interaction{Kind: sessions.Park, Event: "deploy"}), false},
		{"parked on a timer", withIt(snap(sessions.Session{ID: "a", Status: sessions.Running, SubState: sessions.Parked}),
			sessions.Interaction{Kind: sessions.Park, Deadline: &at}), true},
		{"scheduled", snap(sessions.Session{ID: "a", Status: sessions.Created, StartAt: &at}), true},
		{"created", snap(sessions.Session{ID: "a", Status: sessions.Created}), false},
		{"waiting, paused, ended", snap(sessions.Session{ID: "a", Status: sessions.Waiting},
			sessions.Session{ID: "b", Status: sessions.Paused}, sessions.Session{ID: "c", Status: sessions.Ended}), false},
	}
	for _, tc := range cases {
		if got := Busy(tc.snap); got != tc.want {
			t.Errorf("%s: busy %v, want %v", tc.name, got, tc.want)
		}
	}
}

func snap(ss ...sessions.Session) core.Snapshot { return core.Snapshot{Sessions: ss} }

func withIt(s core.Snapshot, it sessions.Interaction) core.Snapshot {
	s.Interactions = append(s.Interactions, core.OpenInteraction{SessionID: s.Sessions[0].ID, Interaction: it})
	return s
}

// hosted runs a host on a fresh workspace in this process and returns once
// it answers; done receives Run's error.
type hosted struct {
	ws     string
	rec    Record
	cancel context.CancelFunc
	done   chan error
}

func runHost(t *testing.T, opts Options) *hosted {
	t.Helper()
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	if opts.Open == nil {
		opts.Open = func(ws string) (*core.Engine, error) { return core.Open(ws, core.Options{NoHistory: true}) }
	}
	ready := make(chan Record, 1)
	opts.Ready = func(r Record) { ready <- r }
	ctx, cancel := context.WithCancel(context.Background())
	h := &hosted{ws: opts.Workspace, cancel: cancel, done: make(chan error, 1)}
	go func() { h.done <- Run(ctx, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-h.done; err != nil {
			t.Logf("the host: %v", err)
		}
	})
	select {
	case h.rec = <-ready:
	case err := <-h.done:
		h.done <- err
		t.Fatalf("the host did not start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the host did not start in 30 s")
	}
	return h
}

func (h *hosted) wait(t *testing.T, within time.Duration) error {
	t.Helper()
	select {
	case err := <-h.done:
		h.done <- err // for the cleanup
		return err
	case <-time.After(within):
		t.Fatalf("the host still runs after %s", within)
		return nil
	}
}

// TestRunLifecycle: a host takes the lock, says so (Probe, engine.json, the
// record), answers on its socket, refuses a second host naming its pid, and
// on a stop removes its socket and records and frees the lock.
func TestRunLifecycle(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	h := runHost(t, Options{Version: "test", IdleExit: -1})
	st, err := Probe(h.ws)
	if err != nil || !st.Running || st.PID != os.Getpid() || st.Version != "test" || st.StartedAt == nil || st.Socket != h.rec.Socket {
		t.Fatalf("Probe: %+v, %v", st, err)
	}
	fi, err := os.Lstat(st.Socket)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("the socket: %v, %v", fi.Mode(), err)
	}
	if r, err := readRecord(engineFile(st.Workspace)); err != nil || r.PID != os.Getpid() || r.Socket != st.Socket {
		t.Errorf(".state/engine.json: %+v, %v", r, err)
	}
	if !Healthy(context.Background(), st.Socket) {
		t.Error("GET /v1/health over the socket did not answer 200")
	}

	err = Run(context.Background(), Options{Workspace: h.ws, Open: func(string) (*core.Engine, error) {
		t.Error("a second host opened the engine")
		return nil, errors.New("no")
	}})
	var running *ErrRunning
	if !errors.As(err, &running) || running.PID != os.Getpid() || !strings.Contains(err.Error(), strconv.Itoa(os.Getpid())) {
		t.Fatalf("a second host: %v", err)
	}

	h.cancel()
	if err := h.wait(t, 30*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err = Probe(h.ws)
	if err != nil || st.Running {
		t.Errorf("after the stop, Probe: %+v, %v", st, err)
	}
	for _, p := range []string{st.Socket, engineFile(st.Workspace), strings.TrimSuffix(st.Socket, ".sock") + ".json"} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left after a clean exit (%v)", p, err)
		}
	}
}

// TestRunStaleSocket: a socket a dead host left is replaced; a file that
// is not a socket is refused.
func TestRunStaleSocket(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	ws := t.TempDir()
	p, err := Locate(ws)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	h := runHost(t, Options{Workspace: ws, IdleExit: -1})
	if !Healthy(context.Background(), h.rec.Socket) {
		t.Error("the host on a stale socket's path does not answer")
	}
	h.cancel()
	if err := h.wait(t, 30*time.Second); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(p.Socket, []byte("not a socket"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = Run(context.Background(), Options{Workspace: ws, IdleExit: -1,
		Open: func(ws string) (*core.Engine, error) { return core.Open(ws, core.Options{NoHistory: true}) }})
	if !errors.Is(err, ErrUnsafeRuntimeDir) {
		t.Fatalf("a file in the socket's place: %v", err)
	}
}

// TestIdleExit: a host with nothing to do exits after its grace, not while
// a client is attached (a request in flight, as an event stream is).
func TestIdleExit(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	attached := make(chan struct{})
	h := runHost(t, Options{IdleExit: 300 * time.Millisecond,
		Handler: func(e *core.Engine, hold func() func()) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				close(attached)
				<-r.Context().Done()
			})
		}})
	ctx, cancel := context.WithCancel(context.Background())
	stream := make(chan struct{})
	go func() {
		defer close(stream)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://atelier/v1/events", nil)
		if resp, err := Client(h.rec.Socket).Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body) // follows the stream until the test cancels it
			_ = resp.Body.Close()                 // cancelled: nothing to report
		}
	}()
	<-attached
	select {
	case err := <-h.done:
		h.done <- err
		t.Fatalf("the host exited with a client attached: %v", err)
	case <-time.After(time.Second):
	}
	cancel()
	<-stream
	if err := h.wait(t, 30*time.Second); err != nil {
		t.Fatalf("the idle exit: %v", err)
	}
	if st, err := Probe(h.ws); err != nil || st.Running {
		t.Errorf("after the idle exit: %+v, %v", st, err)
	}
}

// TestProbeWithoutState: a folder that never had a state has no host, and
// asking does not give it one.
func TestProbeWithoutState(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	ws := t.TempDir()
	st, err := Probe(ws)
	if err != nil || st.Running {
		t.Fatalf("%+v, %v", st, err)
	}
	if _, err := os.Lstat(filepath.Join(ws, sessions.StateDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Probe made a .state/ (%v)", err)
	}
	if _, err := Stop(context.Background(), ws); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Stop: %v", err)
	}
}

// TestIdleExitWaitsForTerminals: a terminal a studio left running keeps
// the host: it exits after its grace only once the terminal has ended.
func TestIdleExitWaitsForTerminals(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	engine := make(chan *core.Engine, 1)
	h := runHost(t, Options{IdleExit: 200 * time.Millisecond,
		Handler: func(e *core.Engine, hold func() func()) http.Handler {
			engine <- e
			return http.NotFoundHandler()
		}})
	e := <-engine
	term, err := e.OpenTerminal(core.TerminalOptions{Argv: []string{"sleep", "60"}, Size: terminal.Size{Cols: 80, Rows: 24}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-h.done:
		h.done <- err
		t.Fatalf("the host exited with a terminal running: %v", err)
	case <-time.After(time.Second): // five graces
	}
	if err := e.CloseTerminal(term.ID()); err != nil {
		t.Fatal(err)
	}
	if err := h.wait(t, 30*time.Second); err != nil {
		t.Fatalf("the idle exit after the terminal ended: %v", err)
	}
}
