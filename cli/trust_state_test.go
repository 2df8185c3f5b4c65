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
	b.stopHost() // the first user's: the other user has a runtime directory of their own
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

// TestBinaryUnreadableSessionListed: a session whose record is corrupt is
// listed as unreadable (not as "ENDED (failed) 0001-01-01"), and `sessions
// show` says why.
func TestBinaryUnreadableSessionListed(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	id := b.create()
	writeFile(t, filepath.Join(b.ws, ".state", "sessions", id, "session.json"), "{broken")
	r := b.run("sessions").want(t, ExitOK)
	if !strings.Contains(r.out, "unreadable") || strings.Contains(r.out, "0001-01-01") {
		t.Errorf("the listing shows:\n%s", r.out)
	}
	r = b.run("sessions", "show", id)
	if !strings.Contains(r.out+r.err, "session.json") {
		t.Errorf("show does not say what is wrong: exit %d\n%s%s", r.code, r.out, r.err)
	}
}
