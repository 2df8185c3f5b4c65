// Package enginetest opens the engine the project's tests drive through
// its clients (the API, attach, the contract): the demo agent paced fast,
// instances kept in a folder of the test's, closed when the test ends. It
// is the one rig those packages build on, so an option the engine gains
// is set in one place. core's own tests keep theirs: this package imports
// core.
package enginetest

import (
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
)

// Demo is the demo agent paced for tests: it streams at once and parks on
// its timer for a moment only.
func Demo() *harness.Demo {
	return &harness.Demo{Pace: 100 * time.Microsecond, Wait: 20 * time.Millisecond}
}

// Open opens an engine on ws with o, filling what o leaves unset: the
// fast demo as the agents, four workers, instances under a temporary
// folder. It is closed when t ends (closing it before is harmless).
func Open(t testing.TB, ws string, o core.Options) *core.Engine {
	t.Helper()
	if o.Agents == nil {
		o.Agents = core.DemoResolver{Demo: Demo()}
	}
	if o.Workers == 0 {
		o.Workers = 4
	}
	if o.Instances.Root == "" {
		o.Instances.Root = t.TempDir()
	}
	e, err := core.Open(ws, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// Serve serves hs on l until t ends, then closes it and waits for its
// loop; a serve that fails otherwise fails t. Register what must close
// after the server (the API server, the engine) before calling it.
func Serve(t testing.TB, l net.Listener, hs *http.Server) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	}()
	t.Cleanup(func() {
		if err := hs.Close(); err != nil {
			t.Error(err)
		}
		<-done
	})
}
