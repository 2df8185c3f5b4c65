package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// asOtherUser makes the sandbox's commands run as another user would: with
// another state directory, so the workspace's .state/ is not theirs.
func (b *sandbox) asOtherUser() {
	for i, kv := range b.env {
		if strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			b.env[i] = "XDG_STATE_HOME=" + filepath.Join(b.t.TempDir(), "state")
		}
	}
}

// TestBinaryForeignState: a workspace whose .state/ another user's Atelier
// made (a clone, an archive) opens read-only with a notice; nothing can be
// sent; `trust --state` lists what it holds, asks (no terminal: exit 2
// without --yes) and adopts it.
func TestBinaryForeignState(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	id := b.create("--mode", "continuous")
	b.asOtherUser()

	r := b.run("sessions").want(t, ExitOK)
	if !strings.Contains(r.err, "foreign state") || !strings.Contains(r.err, "atelier trust --state") {
		t.Errorf("no notice of the foreign state: %q", r.err)
	}
	if !strings.Contains(r.out, id[:6]) {
		t.Errorf("the foreign state's session is not listed: %q", r.out)
	}
	if r := b.run("sessions", "send", id, "hello"); r.code == ExitOK || !strings.Contains(r.err, "read-only") {
		t.Errorf("send into a foreign state: exit %d, %q", r.code, r.err)
	}
	if r := b.run("trust", "--state"); r.code != ExitUsage || !strings.Contains(r.out, id) {
		t.Errorf("trust --state without a terminal: exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.err)
	}
	b.run("trust", "--state", "--yes").want(t, ExitOK)
	r = b.run("sessions").want(t, ExitOK)
	if strings.Contains(r.err, "foreign state") {
		t.Errorf("still foreign after adoption: %q", r.err)
	}
	b.run("sessions", "start", id).want(t, ExitOK)
}
