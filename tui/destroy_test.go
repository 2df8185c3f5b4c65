package tui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
)

// TestDestroyQuitsTheStudio destroys a real engine's state from the
// settings tab: the studio quits and says why; a destroy that fails keeps
// it open with the error.
func TestDestroyQuitsTheStudio(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, ws, 120, 40)
	if _, err := h.eng.Create(core.CreateOptions{Title: "doomed"}); err != nil {
		t.Fatal(err)
	}
	h.until("the session", func() bool { return len(h.app.live.recs) == 1 })

	fail := errors.New("disk on fire")
	h.app.opts.Destroy = func() error { return fail }
	h.press(",", "D")
	h.typeText(filepath.Base(ws))
	h.press("enter")
	if h.quit || !strings.Contains(h.screen(), "destroy: disk on fire") {
		t.Fatalf("a failed destroy keeps the studio open with its error (quit %v):\n%s", h.quit, h.screen())
	}

	h.app.opts.Destroy = h.eng.Destroy
	h.press("D")
	h.typeText(filepath.Base(ws))
	h.press("enter")
	if !h.quit {
		t.Fatalf("after a destroy the studio quits:\n%s", h.screen())
	}
	if _, err := os.Stat(filepath.Join(ws, ".state")); !os.IsNotExist(err) {
		t.Fatalf(".state/ should be gone: %v", err)
	}
	if !strings.Contains(h.app.exitNote, "because you destroyed the state of") {
		t.Fatalf("the studio should say why it quit: %q", h.app.exitNote)
	}
}
