package tui

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
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
