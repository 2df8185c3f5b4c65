package host

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
)

// TestPeerTCP: over a real loopback TCP listener, this process (the host)
// is not a spawned caller and a child of it (curl) is, as on the socket:
// the token file does not let an agent answer its own approvals.
func TestPeerTCP(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("needs curl")
	}
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	addr := freePort(t)
	probe := func(e *core.Engine, hold func() func()) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			spawned, err := SpawnedCaller(r)
			fmt.Fprintf(w, "%v %v", spawned, err)
		})
	}
	pass := func(h http.Handler) http.Handler { return h }
	runHost(t, Options{IdleExit: -1, Handler: probe, TCP: &TCP{Addr: addr, Guard: pass}})
	hc := &http.Client{Timeout: 10 * time.Second}
	for range 2 { // the second request rides the same connection
		resp, err := hc.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		if cerr := resp.Body.Close(); err != nil || cerr != nil {
			t.Fatal(err, cerr)
		}
		if string(b) != "false <nil>" {
			t.Errorf("the host calling itself over TCP: %s", b)
		}
	}
	out, err := exec.Command(curl, "-s", "http://"+addr+"/").Output()
	if err != nil || string(out) != "true <nil>" {
		t.Errorf("a child of the host over loopback TCP: %q, %v", out, err)
	}
	// A shell that runs curl: the socket's holder is a grandchild.
	out, err = exec.Command("sh", "-c", curl+" -s http://"+addr+"/; true").Output()
	if err != nil || string(out) != "true <nil>" {
		t.Errorf("a grandchild of the host over loopback TCP: %q, %v", out, err)
	}
}

// TestProcNetAddr: the socket tables' addresses are read as the kernel
// prints them (words in little-endian order, a hex port).
func TestProcNetAddr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0100007F:1CFC", "127.0.0.1:7420"},
		{"00000000000000000000000001000000:0016", "[::1]:22"},
		{"0000000000000000FFFF00000100007F:1F90", "127.0.0.1:8080"},
	} {
		a, err := parseProcAddr(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		want, err := net.ResolveTCPAddr("tcp", c.want)
		if err != nil {
			t.Fatal(err)
		}
		if !sameAddr(a, want) {
			t.Errorf("%s: %s, want %s", c.in, a, c.want)
		}
	}
	for _, bad := range []string{"", "0100007F", "01007F:1F90", "zz00007F:1F90", "0100007F:10000"} {
		if _, err := parseProcAddr(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
