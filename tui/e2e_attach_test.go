package tui

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// servedToken is the line `atelier serve --listen` prints its token on.
var servedToken = regexp.MustCompile(`(?m)^token: ([0-9a-f]{64})`)

// TestAttachEndToEnd runs `atelier attach URL`, the real binary in tmux,
// on the engine `atelier serve --listen` serves for a workspace the
// studio has no path to (it runs in another, empty folder): the studio
// shows the served workspace's files and says where it is attached;
// quitting leaves the engine running and the studio's folder untouched.
func TestAttachEndToEnd(t *testing.T) {
	x, bin, ws := newE2E(t, "attach")
	writeFile(t, filepath.Join(ws, "far-only.go"), "package far\n")
	addr := loopbackAddr(t)
	serve := exec.Command(bin, "serve", "--detach", "--listen", addr, ws)
	serve.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir()) // the token file: not this user's
	out, err := serve.CombinedOutput()
	if err != nil {
		t.Fatalf("atelier serve --listen: %v\n%s", err, out)
	}
	m := servedToken.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no token printed:\n%s", out)
	}
	here := t.TempDir()
	url := "http://" + addr
	x.keys("cd "+here+" && ATELIER_TOKEN="+string(m[1])+" "+bin+" attach "+url, "Enter")
	x.waitFor("the attached studio", func(s string) bool {
		return strings.Contains(s, "attached to "+url) && strings.Contains(s, "far-only.go")
	})
	x.keys("q")
	x.waitFor("the shell again", func(s string) bool { return !strings.Contains(s, "Action required") })
	if _, err := os.Lstat(filepath.Join(here, ".state")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the attached studio made a state in its own folder: %v", err)
	}
	if out, err := exec.Command(bin, "serve", "--status", ws).CombinedOutput(); err != nil {
		t.Errorf("the engine stopped with the attached studio: %v\n%s", err, out)
	}
}

// TestStudioFollowsARestartWithAListener: with a studio open on its
// workspace (which started a plain host), `atelier serve --restart
// --listen` hands the workspace to a host that listens, quickly; the
// studio says it reconnected, reattaches to that host (never starting one
// of its own) and its controls reach it: a session it creates afterwards
// is on the listening host.
func TestStudioFollowsARestartWithAListener(t *testing.T) {
	x, bin, ws := newE2E(t, "handover")
	x.open(bin + " " + ws)
	x.startDemo("before")
	first := hostPID(t, bin, ws)
	if first == 0 {
		t.Fatal("the studio started no host")
	}
	addr := loopbackAddr(t)
	restart := exec.Command(bin, "serve", "--restart", "--listen", addr, ws)
	restart.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir()) // the token file: not this user's
	began := time.Now()
	out, err := restart.CombinedOutput()
	took := time.Since(began)
	if err != nil {
		t.Fatalf("atelier serve --restart --listen: %v (after %s)\n%s", err, took, out)
	}
	t.Logf("serve --restart --listen with a studio open took %s", took)
	m := servedToken.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no token printed:\n%s", out)
	}
	x.waitFor("the studio reattached", func(s string) bool { return strings.Contains(s, "reattached") })
	if pid := hostPID(t, bin, ws); pid == first || pid == 0 {
		t.Fatalf("the host after the restart: pid %d (the first was %d)", pid, first)
	}
	// The studio's answer goes to the listening host, which runs the
	// session on to the demo's question.
	x.keys("a")
	x.waitFor("the question", func(s string) bool {
		return strings.Contains(s, "exec ✓ done") && strings.Contains(s, "Which greeting")
	})
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/interactions", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+string(m[1]))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the listening host: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); err != nil || cerr != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/interactions over TCP: %d, %v, %v", resp.StatusCode, err, cerr)
	}
	if !strings.Contains(string(body), "Which greeting") || strings.Contains(string(body), "ls -la") {
		t.Errorf("the listening host should wait on the question alone, the approval answered:\n%s", body)
	}
}

// loopbackAddr is a loopback address with a port nothing listens on, for
// a host to serve.
func loopbackAddr(t *testing.T) string {
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
