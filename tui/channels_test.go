package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/notify"
)

// TestSettingsTestsTheChannels: the settings tab lists the channels of the
// engine it runs on and N sends a test through them (here in-process,
// through a real script reading the event on stdin); the outcome shows in
// the tab and on the status line.
func TestSettingsTestsTheChannels(t *testing.T) {
	h, ws := editorWorkspace(t, 140, 60)
	out := filepath.Join(t.TempDir(), "event.json")
	dir, err := os.MkdirTemp("", "n") // short: the path is shown whole
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	script := filepath.Join(dir, "hook.sh")
	writeFile(t, script, "#!/bin/sh\ncat > "+out+"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	n := notify.New(notify.Options{Settings: notify.Settings{Command: []string{script}, Desktop: "off",
		Events: []string{notify.KindApproval, notify.KindStuck}}})
	t.Cleanup(n.Close)
	h.app.eng = attach.LocalWith(h.eng, n)

	h.press(",")
	if !strings.Contains(h.screen(), "command  "+script+"  ready") || !strings.Contains(h.screen(), "of approval, stuck") {
		t.Fatalf("the channels are not listed:\n%s", h.screen())
	}
	h.press("N")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the test did not reach the command: %v", err)
	}
	var ev notify.Event
	if err := json.Unmarshal(b, &ev); err != nil || ev.Kind != notify.KindTest || ev.Workspace != ws {
		t.Errorf("the command read %q (%v)", b, err)
	}
	if !strings.Contains(h.screen(), "test: command sent it") || !strings.Contains(h.app.status.text, "test notification sent through command") {
		t.Errorf("the outcome is not shown; status %q:\n%s", h.app.status.text, h.screen())
	}
}
