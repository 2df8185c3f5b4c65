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

// TestCreateWaitOnHost: `sessions create --wait` with no host starts one
// and follows the session there: the created event comes first, then the
// whole first turn (its reply), and the session is the host's (its start
// went through the API, labelled cli). With --json the first event is
// session_created. (Before: create --wait ran the session in the command's
// own engine.)
func TestCreateWaitOnHost(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	r := b.run("sessions", "create", "--wait", "--approve", "auto", "hello there").want(t, ExitOK)
	if !strings.Contains(r.out, "You said: hello there") || !strings.Contains(r.err, "created") {
		t.Errorf("create --wait printed:\nstdout:\n%s\nstderr:\n%s", r.out, r.err)
	}
	if b.hostPID() == 0 {
		t.Fatal("create --wait started no host")
	}
	id := b.onlySession()
	if c, ok := b.request(id, sessions.CtlStart, ""); !ok || c.Client != "cli" {
		t.Errorf("the start was not sent through the host: %+v %v", c, ok)
	}
	if got := b.turnStarts(id); got != 1 {
		t.Errorf("%d turn starts, want 1", got)
	}
	if rec := b.record(id); rec.Status != string(sessions.Ended) {
		t.Errorf("the one-shot session is %s after create --wait, want ENDED", rec.Status)
	}

	r = b.run("sessions", "create", "--wait", "--json", "--approve", "auto", "again").want(t, ExitOK)
	first, _, _ := strings.Cut(strings.TrimSpace(r.out), "\n")
	if !strings.Contains(first, `"type":"session_created"`) || !strings.Contains(r.out, "You said: again") {
		t.Errorf("create --wait --json printed:\n%s", r.out)
	}
}
