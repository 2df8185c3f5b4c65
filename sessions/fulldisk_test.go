//go:build linux

package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/atelier-studio/atelier/internal/testreq"
)

// TestCreateOnAFullDiskLeavesNothing: a create that fails for want of space
// leaves no session folder (a ghost that would list as an unreadable
// session), nor a half-made one; a save that fails leaves the old record
// and no temporary file; once space is back, creating works.
func TestCreateOnAFullDiskLeavesNothing(t *testing.T) {
	ws := testreq.Tmpfs(t, "1m")
	s, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	first := newSession(t, s)
	filler := testreq.FillDisk(t, ws)

	ghost := &Session{ID: NewID(), Title: "t", Agent: "demo", Mode: OneShot, Status: Created,
		Instructions: strings.Repeat("a long task ", 1000)}
	if err := s.Create(ghost); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("create on a full disk: %v", err)
	}
	left, err := os.ReadDir(filepath.Join(ws, StateDir, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Name() != first.ID {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Fatalf("after a failed create, sessions/ holds %v", names)
	}
	ents, err := s.List()
	if err != nil || len(ents) != 1 || ents[0].Session.ID != first.ID || ents[0].ReadOnly {
		t.Fatalf("list: %+v %v", ents, err)
	}

	first.Instructions = strings.Repeat("a longer task ", 1000)
	if err := s.Save(first); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("save on a full disk: %v", err)
	}
	files, err := os.ReadDir(s.Dir(first.ID))
	if err != nil || len(files) != 1 || files[0].Name() != RecordFile {
		t.Fatalf("after a failed save the session's folder holds %v (%v)", files, err)
	}
	if en, err := s.Load(first.ID); err != nil || en.ReadOnly || en.Session.Instructions != "" {
		t.Fatalf("the old record is not intact: %+v %v", en, err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ghost); err != nil {
		t.Fatalf("create once space is back: %v", err)
	}
	if en, err := s.Load(ghost.ID); err != nil || en.ReadOnly {
		t.Fatalf("load the new session: %+v %v", en, err)
	}
}
