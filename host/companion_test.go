package host

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
)

// keeper is a companion that keeps the host alive and notes whether the
// engine was still open when it was stopped.
type keeper struct {
	e       *core.Engine
	mu      sync.Mutex
	stopped bool
	openErr error
}

func (k *keeper) KeepAlive() []string { return []string{`tick (schedule "@every 1s")`} }

func (k *keeper) Stop() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stopped = true
	_, k.openErr = k.e.Create(core.CreateOptions{Instructions: "still open"})
	return nil
}

// TestCompanionKeepsAlive: a host whose companion names reasons to stay
// says so in its record (serve --status) and its log and does not take the
// idle exit; it stops the companion before it closes the engine.
func TestCompanionKeepsAlive(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	k := &keeper{}
	var mu sync.Mutex
	var logs []string
	h := runHost(t, Options{IdleExit: 50 * time.Millisecond,
		Companion: func(e *core.Engine) (Companion, error) { k.e = e; return k, nil },
		Logf: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, format)
		}})
	st, err := Probe(h.ws)
	if err != nil || len(st.KeptAlive) != 1 || st.KeptAlive[0] != `tick (schedule "@every 1s")` {
		t.Fatalf("Probe: %+v, %v", st, err)
	}
	mu.Lock()
	said := strings.Contains(strings.Join(logs, "\n"), "kept alive by triggers")
	mu.Unlock()
	if !said {
		t.Errorf("the log does not say why the host stays: %q", logs)
	}
	h.cancel()
	if err := h.wait(t, 30*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.stopped || k.openErr != nil {
		t.Fatalf("the companion was stopped %v, the engine then: %v", k.stopped, k.openErr)
	}
}
