package tui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
)

// TestSettingsTailTheRunLog opens the settings tab on a real engine: it
// shows the end of .state/engine.log, follows it as the engine writes, and
// stops polling once the tab is closed.
func TestSettingsTailTheRunLog(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.press(",")
	st := h.app.set.settingsTab()
	if st == nil {
		t.Fatal(", opens the settings tab")
	}
	// The engine writes its first line in a goroutine of its own.
	waitLog := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(strings.Join(st.RunLog(), "\n"), want) {
			if time.Now().After(deadline) {
				t.Fatalf("the run log never showed %q: %q", want, st.RunLog())
			}
			time.Sleep(20 * time.Millisecond)
			h.send(runLogTick{gen: h.app.set.runLogGen})
		}
	}
	waitLog("engine started (pid")
	h.press("G")
	if s := h.screen(); !strings.Contains(s, "Run log") || !strings.Contains(s, filepath.Join(".state", core.RunLogFile)) ||
		!strings.Contains(s, "engine started") {
		t.Fatalf("the tab shows the run log's end:\n%s", s)
	}
	rec, err := h.eng.Create(core.CreateOptions{Title: "logged"})
	if err != nil {
		t.Fatal(err)
	}
	waitLog("session " + rec.ID + " CREATED")
	if !strings.Contains(h.screen(), "session "+rec.ID+" CREATED") {
		t.Fatalf("following the end, the new line is in view (%q):\n%s", st.RunLog(), h.screen())
	}

	// Closed, the tab's poll ends.
	h.press("ctrl+w")
	if h.app.set.settingsTab() != nil {
		t.Fatal("ctrl+w closes the settings")
	}
	if cmd := h.app.set.runLogResult(runLogTick{gen: h.app.set.runLogGen}); cmd != nil {
		t.Fatal("no tab, no more reads")
	}
}

func TestTailFileKeepsTheLastLinesAndSkipsAnUnchangedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "engine.log")
	var b strings.Builder
	for i := range 5000 {
		b.WriteString("line " + itoa(i) + " \x1b[31mred\x1b[0m\tend\n")
	}
	writeFile(t, path, b.String())
	st, lines, err := tailFile(path, runLogState{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != runLogLines || lines[len(lines)-1] != "line 4999 red    end" || lines[0] != "line 4800 red    end" {
		t.Fatalf("%d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	if _, again, err := tailFile(path, st); err != nil || again != nil {
		t.Fatalf("an unchanged file is not read again: %q %v", again, err)
	}
	if _, _, err := tailFile(filepath.Join(t.TempDir(), "none"), runLogState{}); err == nil || !strings.Contains(err.Error(), "run log") {
		t.Fatalf("a missing log says so: %v", err)
	}
}
