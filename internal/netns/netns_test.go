package netns

import (
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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ifs, _ := net.Interfaces()
	for _, i := range ifs {
		if i.Name != "lo" {
			t.Fatalf("interface %s exists inside the namespace", i.Name)
		}
	}
	c := net.Dialer{Timeout: 200 * time.Millisecond}
	if conn, err := c.Dial("tcp", "192.0.2.1:80"); err == nil {
		conn.Close()
		t.Fatal("reached beyond loopback")
	}
}
