package mcp

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
)

// seenEnv is the demo agent, recording the variables each resolution was
// handed.
type seenEnv struct {
	demo *harness.Demo
	mu   sync.Mutex
	seen []string
}

func (r *seenEnv) Resolve(agent string) (harness.Harness, core.AgentSettings, error) {
	return r.ResolveEnv(agent, nil)
}

func (r *seenEnv) ResolveEnv(agent string, env map[string]string) (harness.Harness, core.AgentSettings, error) {
	r.mu.Lock()
	r.seen = append(r.seen, agent+":"+env["KEY"])
	r.mu.Unlock()
	return core.DemoResolver{Demo: r.demo}.Resolve(agent)
}

func (r *seenEnv) saw(want string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.seen {
		if s == want {
			return true
		}
	}
	return false
}

// TestHandsTheClientsVariables: the bridge hands the engine, with a
// create and with a send, the variables its Env gives for the session's
// agent; the session's next turn resolves its agent with the send's.
func TestHandsTheClientsVariables(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	res := &seenEnv{demo: &harness.Demo{Pace: 100 * time.Microsecond, Wait: 20 * time.Millisecond}}
	r := &rig{t: t, ws: t.TempDir()}
	startHostWith(t, r.ws, res)
	var mu sync.Mutex
	n := 0
	r.env = func(agent string) map[string]string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return map[string]string{"KEY": fmt.Sprintf("%s-%d", agent, n)}
	}
	r.connect()

	var created SessionOut
	r.must(ToolCreateSession, map[string]any{"agent": "demo", "task": "t", "mode": "continuous", "hold": true}, &created)
	if !res.saw("demo:demo-1") {
		t.Fatalf("the create did not hand its variables: %v", res.seen)
	}
	r.must(ToolSendPrompt, map[string]any{"session": created.Session.ID, "text": "next"}, nil)
	r.must(ToolControl, map[string]any{"session": created.Session.ID, "action": "start"}, nil)
	for deadline := time.Now().Add(10 * time.Second); !res.saw("demo:demo-2"); {
		if time.Now().After(deadline) {
			t.Fatalf("the turn did not run with the send's variables: %v", res.seen)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
