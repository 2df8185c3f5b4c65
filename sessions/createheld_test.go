package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestCreateHeld: the new session's lock file is flocked before its folder
// is visible, so no other opener can take it until its creator lets go; a
// lock name that is not a file name is refused and creates nothing.
func TestCreateHeld(t *testing.T) {
	s := newStore(t)
	rec := &Session{ID: NewID(), Title: "t", Agent: "demo", Mode: OneShot, Status: Created, CreatedAt: time.Now()}
	held, err := s.CreateHeld(rec, "lease")
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.OpenFile(filepath.Join(s.Dir(rec.ID), "lease"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	if err := unix.Flock(int(other.Fd()), unix.LOCK_EX|unix.LOCK_NB); !errors.Is(err, unix.EWOULDBLOCK) {
		t.Fatalf("flock of a held lease: %v, want EWOULDBLOCK", err)
	}
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(other.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatalf("flock once the creator let go: %v", err)
	}
	if _, err := s.Load(rec.ID); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Dir(s.Dir(rec.ID)))
	if err != nil || len(ents) != 1 {
		t.Fatalf("the sessions folder holds %v (%v), want only the session", ents, err)
	}

	bad := &Session{ID: NewID(), Title: "t", Agent: "demo", Mode: OneShot, Status: Created, CreatedAt: time.Now()}
	if _, err := s.CreateHeld(bad, "../lease"); err == nil {
		t.Fatal("a lock path outside the folder was taken")
	}
	if _, err := os.Stat(s.Dir(bad.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused create left %s: %v", s.Dir(bad.ID), err)
	}
}
