package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
)

// TestRepairsAreShown: what opening a workspace repaired (here a torn last
// line of the controls log) shows in the activity, not only in `sessions show`.
func TestRepairsAreShown(t *testing.T) {
	ws := t.TempDir()
	eng, err := core.Open(ws, core.Options{Agents: core.DemoResolver{Demo: &harness.Demo{}}, Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := eng.Create(core.CreateOptions{Agent: "demo", Instructions: "a task"})
	if err != nil {
		t.Fatal(err)
	}
	closeEngine(t, eng)
	f, err := os.OpenFile(filepath.Join(ws, ".state", "sessions", rec.ID, "controls.jsonl"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"c1","kind":"pau`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, ws, 160, 48)
	h.until("the repair in the activity", func() bool { return strings.Contains(h.screen(), "repaired when read") })
}
