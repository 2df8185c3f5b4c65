package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

func TestDivergenceReportedOnOpen(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("changed by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	r2 := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	r2.until("divergence notice", func(ev Event) bool {
		return ev.Kind == EvNotice && strings.Contains(ev.Text, "a.txt") && strings.Contains(ev.Text, "differs")
	})
	if d := r2.e.Divergence(); len(d) != 1 || d[0] != "a.txt" {
		t.Fatalf("divergence %v", d)
	}
}

func TestWorkspaceLost(t *testing.T) {
	m, _ := gated()
	parent := t.TempDir()
	ws := filepath.Join(parent, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	r := openRig(t, ws, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.streaming(id)
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	s := r.status(id, sessions.Ended)
	if s.EndReason != sessions.WorkspaceLost {
		t.Fatalf("ended %s", s.EndReason)
	}
}
