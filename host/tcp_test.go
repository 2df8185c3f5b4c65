package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
)

func TestTCPCheck(t *testing.T) {
	guard := func(h http.Handler) http.Handler { return h }
	for _, c := range []struct {
		name string
		tcp  TCP
		ok   bool
	}{
		{"loopback v4", TCP{Addr: "127.0.0.1:7420", Guard: guard}, true},
		{"loopback v6", TCP{Addr: "[::1]:7420", Guard: guard}, true},
		{"localhost", TCP{Addr: "localhost:0", Guard: guard}, true},
		{"every interface", TCP{Addr: ":7420", Guard: guard}, false},
		{"0.0.0.0", TCP{Addr: "0.0.0.0:7420", Guard: guard}, false},
		{"an address", TCP{Addr: "192.0.2.1:7420", Guard: guard}, false},
		{"a name", TCP{Addr: "box.example:7420", Guard: guard}, false},
		{"an address with TLS", TCP{Addr: "0.0.0.0:7420", CertFile: "c", KeyFile: "k", Guard: guard}, true},
		{"a certificate without its key", TCP{Addr: "127.0.0.1:7420", CertFile: "c", Guard: guard}, false},
		{"no port", TCP{Addr: "127.0.0.1", Guard: guard}, false},
		{"no guard", TCP{Addr: "127.0.0.1:7420"}, false},
	} {
		err := CheckTCP(c.tcp)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if err := CheckTCP(TCP{Addr: "0.0.0.0:1", Guard: guard}); !errors.Is(err, ErrPlainRemote) {
		t.Errorf("plain remote: %v", err)
	}
}

func TestTCPHostNames(t *testing.T) {
	for _, c := range []struct {
		addr  string
		extra []string
		want  string
	}{
		{"127.0.0.1:7420", nil, "127.0.0.1 localhost 127.0.0.1 ::1"},
		{"[::1]:7420", []string{"box"}, "::1 localhost 127.0.0.1 ::1 box"},
		{"0.0.0.0:7420", []string{"box.example"}, "box.example"},
		{":7420", nil, ""},
		{"192.0.2.1:443", nil, "192.0.2.1"},
	} {
		if got := strings.Join(HostNames(c.addr, c.extra), " "); got != c.want {
			t.Errorf("HostNames(%s, %v) = %q, want %q", c.addr, c.extra, got, c.want)
		}
	}
}

// TestTCPToken: a token is made 0600 once and reused; a malformed one is
// replaced; one others may read, or a symbolic link, is refused.
func TestTCPToken(t *testing.T) {
	cfg := t.TempDir()
	env := getenv(map[string]string{"XDG_CONFIG_HOME": cfg})
	tok, path, err := LoadToken(env)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(cfg, "atelier", "token") || len(tok) != 64 || strings.Trim(tok, "0123456789abcdef") != "" {
		t.Fatalf("token %q in %s", tok, path)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file: %v, %v", fi.Mode(), err)
	}
	if again, _, err := LoadToken(env); err != nil || again != tok {
		t.Fatalf("a second load: %q, %v (want the same token)", again, err)
	}

	if err := os.WriteFile(path, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fresh, _, err := LoadToken(env); err != nil || fresh == tok || len(fresh) != 64 {
		t.Fatalf("over a malformed token: %q, %v", fresh, err)
	}

	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadToken(env); !errors.Is(err, ErrUnsafeToken) {
		t.Fatalf("a group-readable token: %v", err)
	}
	if b, err := os.ReadFile(path); err != nil || len(b) != 65 {
		t.Errorf("the refused token file was changed: %q, %v", b, err)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(cfg, "elsewhere"), path); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadToken(env); !errors.Is(err, ErrUnsafeToken) {
		t.Fatalf("a symbolic link: %v", err)
	}

	home := t.TempDir()
	_, p, err := LoadToken(getenv(map[string]string{"HOME": home}))
	if err != nil || p != filepath.Join(home, ".config", "atelier", "token") {
		t.Errorf("without XDG_CONFIG_HOME: %s, %v", p, err)
	}
}

// TestPeerSpawnedBy: a child of this process, and a process orphaned out
// of the tree whose group leader is a child, are spawned by it; this
// process and its parent are not.
func TestPeerSpawnedBy(t *testing.T) {
	me := os.Getpid()
	if got, err := spawnedBy(me, me); err != nil || got {
		t.Errorf("the host itself: %v, %v", got, err)
	}
	if got, err := spawnedBy(os.Getppid(), me); err != nil || got {
		t.Errorf("the host's parent: %v, %v", got, err)
	}
	child := exec.Command("sleep", "30")
	child.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() }) // ends the test's own child
	if got, err := spawnedBy(child.Process.Pid, me); err != nil || !got {
		t.Errorf("a child in a group of its own: %v, %v", got, err)
	}

	// sh leads a group of its own; the subshell starts sleep and exits, so
	// sleep is re-parented away from this process but stays in sh's group.
	leader := exec.Command("sh", "-c", `(sleep 30 3>&- & echo $! >&3); exec sleep 30 3>&-`)
	leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	leader.ExtraFiles = []*os.File{w}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-leader.Process.Pid, syscall.SIGKILL); _ = leader.Wait() }) // the group is the test's
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("the orphan's pid: %q", b)
	}
	if d, err := descends(orphan, me); err != nil || d {
		t.Logf("the orphan still descends from the test (%v, %v): a subreaper above?", d, err)
	}
	if got, err := spawnedBy(orphan, me); err != nil || !got {
		t.Errorf("an orphan in a child's group: %v, %v", got, err)
	}
	if _, err := spawnedBy(1<<22+1, me); err == nil {
		t.Error("a process that does not exist: no error")
	}
}

// TestPeerSocket: over a real host socket, this process (the host) is not
// a spawned caller and a child of it (curl) is.
func TestPeerSocket(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("needs curl")
	}
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	h := runHost(t, Options{IdleExit: -1,
		Handler: func(e *core.Engine, hold func() func()) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				spawned, err := SpawnedCaller(r)
				fmt.Fprintf(w, "%v %v", spawned, err)
			})
		}})
	resp, err := Client(h.rec.Socket).Get("http://atelier/")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	if string(b) != "false <nil>" {
		t.Errorf("the host calling itself: %s", b)
	}
	out, err := exec.Command(curl, "-s", "--unix-socket", h.rec.Socket, "http://atelier/").Output()
	if err != nil || string(out) != "true <nil>" {
		t.Errorf("a child of the host: %q, %v", out, err)
	}
}

// TestTCPRun: a host with a TCP listener serves it through its guard;
// one without a guard, or on a plain remote address, does not start.
func TestTCPRun(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	addr := freePort(t)
	guard := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer t" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	runHost(t, Options{IdleExit: -1, TCP: &TCP{Addr: addr, Guard: guard}})
	for _, c := range []struct {
		auth string
		want int
	}{{"", 401}, {"Bearer t", 200}} {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://"+addr+"/v1/health", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", c.auth)
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if err := resp.Body.Close(); err != nil || resp.StatusCode != c.want {
			t.Errorf("%q: %d, want %d (%v)", c.auth, resp.StatusCode, c.want, err)
		}
	}

	for _, tcp := range []TCP{{Addr: "0.0.0.0:0", Guard: guard}, {Addr: freePort(t)}} {
		err := Run(context.Background(), Options{Workspace: t.TempDir(), IdleExit: -1, TCP: &tcp,
			Open: func(ws string) (*core.Engine, error) { return core.Open(ws, core.Options{NoHistory: true}) }})
		if err == nil {
			t.Errorf("%+v: started", tcp)
		}
	}
}

// freePort is a loopback address with a port nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
