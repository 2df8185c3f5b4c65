package attach

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/internal/enginetest"
)

// served is a real engine served over a real unix socket, as a host
// serves it.
type served struct {
	eng  *core.Engine
	srv  *api.Server
	http *http.Server
	done chan struct{}
}

// serve opens an engine on ws with the demo agent paced fast and serves
// its API on sock until stopped.
func serve(t *testing.T, ws, sock string) *served {
	t.Helper()
	eng := enginetest.Open(t, ws, core.Options{NoHistory: true})
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	s := &served{eng: eng, srv: api.NewServer(eng, api.Options{Version: "test"}), done: make(chan struct{})}
	s.http = &http.Server{Handler: s.srv, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.http.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	}()
	return s
}

// stop ends the server and closes its engine, as a host that stops.
func (s *served) stop(t *testing.T) {
	t.Helper()
	if s.srv == nil {
		return
	}
	if err := s.http.Close(); err != nil {
		t.Error(err)
	}
	<-s.done
	s.srv.Close()
	s.srv = nil
	if err := s.eng.Close(); err != nil {
		t.Error(err)
	}
}

// socketPath is a short path for a socket (108 bytes at most).
func socketPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "at")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	return filepath.Join(dir, "s")
}

func newClient(t *testing.T, sock string) *client.Client {
	t.Helper()
	c, err := client.New(sock, client.Options{Label: "studio"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func baseName(p string) string { return filepath.Base(p) }
