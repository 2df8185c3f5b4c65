package netns

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestOnlyLoopback proves the namespace: loopback works, and the only
// interface is lo, so nothing can leave the machine.
func TestOnlyLoopback(t *testing.T) {
	if !Enter(t) {
		return
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok")) // the client checks what it got
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil || string(body) != "ok" {
		t.Fatalf("loopback answer %q: %v", body, err)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range ifs {
		if i.Name != "lo" {
			t.Fatalf("interface %s exists inside the namespace", i.Name)
		}
	}
	c := net.Dialer{Timeout: 200 * time.Millisecond}
	if conn, err := c.Dial("tcp", "192.0.2.1:80"); err == nil {
		_ = conn.Close() // the test fails on the next line either way
		t.Fatal("reached beyond loopback")
	}
}
