package api

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/enginetest"
)

// rig is a real engine served over a real unix socket, and a client of it.
type rig struct {
	t    testing.TB
	ws   string
	sock string
	eng  *core.Engine
	srv  *Server
	http *http.Server
	c    *client.Client

	mu    sync.Mutex
	conns map[net.Conn]bool
}

// newRig opens an engine on a new workspace with the demo agent paced fast
// and serves it.
func newRig(t testing.TB, opts Options) *rig {
	t.Helper()
	return openRig(t, t.TempDir(), opts)
}

func openRig(t testing.TB, ws string, opts Options) *rig {
	t.Helper()
	eng := enginetest.Open(t, ws, core.Options{NoHistory: true})
	// A short directory: a socket path is limited to 108 bytes.
	dir, err := os.MkdirTemp("", "at")
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, ws: ws, sock: filepath.Join(dir, "s"), eng: eng, conns: map[net.Conn]bool{}}
	l, err := net.Listen("unix", r.sock)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Version == "" {
		opts.Version = "test"
	}
	r.srv = NewServer(eng, opts)
	r.http = &http.Server{Handler: newDeclaredAnswers(t, r.srv, r.srv), ConnState: r.track, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := r.http.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	}()
	r.c, err = client.New(r.sock, client.Options{Label: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.c.CloseIdle()
		if err := r.http.Close(); err != nil {
			t.Error(err)
		}
		<-served
		r.srv.Close()
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	return r
}

func (r *rig) track(c net.Conn, st http.ConnState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch st {
	case http.StateNew:
		r.conns[c] = true
	case http.StateClosed, http.StateHijacked:
		delete(r.conns, c)
	}
}

// dropConns closes every connection from the server's side, as a host
// that goes away mid-stream would.
func (r *rig) dropConns() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.conns {
		// Closing is the point; an error means it was closing anyway.
		_ = c.Close()
	}
}

// stream opens the whole workspace's event stream and takes its first
// event, the snapshot.
func (r *rig) stream(t testing.TB, ctx context.Context) *client.Stream {
	t.Helper()
	st, err := r.c.Events(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if ev := <-st.C; ev.Kind != client.KindSnapshot {
		t.Fatalf("first event %s", ev.Kind)
	}
	return st
}

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
