package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

func TestDestroyRemovesStateAfterStoppingSessions(t *testing.T) {
	m, _ := gated()
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.streaming(id)
	if err := os.WriteFile(filepath.Join(r.ws, "mine.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.e.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.ws, sessions.StateDir)); !os.IsNotExist(err) {
		t.Fatalf(".state still there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(r.ws, "mine.txt")); string(b) != "keep" {
		t.Fatal("destroy touched the workspace's own files")
	}
}

func TestRunLogRecordsStatusChanges(t *testing.T) {
	r := newRig(t, MapResolver{"a": &scripted.Model{}})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.status(id, sessions.Ended)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r.e.RunLogPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "session "+id+" ENDED completed") {
		t.Fatalf("run log:\n%s", b)
	}
}
