package tui

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/internal/golden"
)

// TestTerminalCopyModeThroughTheStudio: with a terminal's keys released,
// [ enters its copy mode; the status line says so and how to leave, the
// studio's own keys (q is quit) go to copy mode instead, and y copies the
// selection to the clipboard and says how much.
func TestTerminalCopyModeThroughTheStudio(t *testing.T) {
	h := newHarness(t, t.TempDir(), 100, 24)
	h.run(h.app.work.openTerminal("lines", []string{"sh", "-c", "i=1; while [ $i -le 40 ]; do echo line-$i; i=$((i+1)); done"}))
	tt, ok := h.app.tabs.current().(*termTab)
	if !ok || !tt.Exited() {
		t.Fatalf("the terminal should have run to its end; status %q", h.app.status.text)
	}
	h.press("ctrl+]", "[")
	if !tt.Copying() {
		t.Fatalf("ctrl+] then [ should enter copy mode:\n%s", h.screen())
	}
	s := h.screen()
	if !strings.Contains(s, "COPY MODE") || !strings.Contains(s, "esc leaves") {
		t.Fatalf("the status line says copy mode and how to leave:\n%s", s)
	}
	golden.Check(t, "terminal-copy-100x24.txt", s)

	h.press("k", "V", "k", "q") // q leaves copy mode: it does not quit
	if h.quit || tt.Copying() || len(h.clip) != 0 {
		t.Fatalf("q should leave copy mode only: quit %v, copying %v, copied %q", h.quit, tt.Copying(), h.clip)
	}
	h.press("[", "k", "V", "k", "y")
	if len(h.clip) != 1 || h.clip[0] != "line-39\nline-40" {
		t.Fatalf("the clipboard got %q, want line-39 and line-40", h.clip)
	}
	if s := h.screen(); !strings.Contains(s, "copied 15 characters") || strings.Contains(s, "COPY MODE") {
		t.Errorf("after y the status line says what was copied and copy mode ended:\n%s", s)
	}
}
