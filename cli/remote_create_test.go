package cli

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/sessions"
)

// TestRemoteCreate: with a host running, `sessions create` goes through it,
// so the session is the host's at once: a start right after it works, and
// the host runs the turn. (Before: a session a command created was unknown
// to the host until it looked at the store again.)
func TestRemoteCreate(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	b.detach()
	id := b.create("--mode", "continuous")
	r := b.run("sessions", "start", id, "--wait").want(t, ExitOK)
	if !strings.Contains(r.out, "You said") && !strings.Contains(r.out, "a task") {
		t.Errorf("start --wait of a session created through the host printed:\n%s\n%s", r.out, r.err)
	}
	if c, ok := b.request(id, sessions.CtlStart, ""); !ok || c.Client != "cli" {
		t.Errorf("the start was not sent through the host: %+v %v", c, ok)
	}
	b.run("serve", "--stop").want(t, ExitOK)
}
