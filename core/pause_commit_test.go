package core

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/atelier-studio/atelier/internal/testreq"
	"github.com/atelier-studio/atelier/sessions"
)

// holdHistoryLock takes the history's cross-process lock, as another
// atelier process committing would, so no commit can run until the
// returned func releases it.
func holdHistoryLock(t *testing.T, ws string) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(ws, ".state", "git", "atelier.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release := func() {
		once.Do(func() {
			if err := unix.Flock(int(f.Fd()), unix.LOCK_UN); err != nil {
				t.Error(err)
			}
			if err := f.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// A resumed model turn first waits for the operator commit (git, slow on a
// big workspace). A pause asked for meanwhile applies before the turn's
// first step without waiting for that commit: here the commit cannot run
// at all while the test holds the history's lock, and PAUSED must still
// come. Once the lock is free the commit is made and the session runs on.
func TestPauseDuringOperatorCommitAppliesAtOnce(t *testing.T) {
	testreq.Binary(t, "git", "git")
	r := newRig(t, MapResolver{"busy": busy{}})
	id := r.create(CreateOptions{Agent: "busy", AutoStart: true, Approval: PolicyAuto}).ID
	r.streaming(id)
	if _, err := r.e.As("").Pause(id); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Paused)
	r.e.commits.barrier() // the first turn's operator commit is made

	release := holdHistoryLock(t, r.ws)
	if _, err := r.e.As("").Resume(id); err != nil {
		t.Fatal(err)
	}
	r.until("RUNNING after resume", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Status == sessions.Running
	})
	rc, err := r.e.As("").Pause(id)
	if err != nil {
		t.Fatal(err)
	}
	r.until("PAUSED while the operator commit is held", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Status == sessions.Paused
	})
	ctls, _, err := r.e.store.Log(id).Controls()
	if err != nil {
		t.Fatal(err)
	}
	if !settledAs(ctls, rc.ID, "applied") {
		t.Fatalf("pause %s not settled applied: %+v", rc.ID, ctls)
	}
	msgs, _, err := r.e.Transcript(id)
	if err != nil {
		t.Fatal(err)
	}
	before := len(tools(msgs))

	release()
	r.e.commits.barrier() // the held commit, and nothing queued behind it, is left
	if _, err := r.e.As("").Resume(id); err != nil {
		t.Fatal(err)
	}
	r.until("a step after the commit", func(ev Event) bool {
		return ev.Kind == EvDelta && ev.SessionID == id && ev.Delta.Type == sessions.ToolPart
	})
	if _, err := r.e.As("").Pause(id); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Paused)
	msgs, _, err = r.e.Transcript(id)
	if err != nil {
		t.Fatal(err)
	}
	if after := len(tools(msgs)); after <= before {
		t.Fatalf("no step ran after the last resume: %d tool calls before, %d after", before, after)
	}
}

// settledAs reports whether the control log settles control id with outcome.
func settledAs(ctls []sessions.Control, id, outcome string) bool {
	for _, c := range ctls {
		if c.ID == id && c.Outcome == outcome {
			return true
		}
	}
	return false
}
