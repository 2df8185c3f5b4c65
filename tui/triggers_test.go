package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/trigger"
	"github.com/atelier-studio/atelier/tui/activity"
)

// TestSettingsListTriggersAndActivityShowsFirings: on a real engine with
// its trigger runner, an event fired shows in the activity with the
// trigger's firing, and the settings tab lists the trigger with its last
// firing, read from the record as it changes.
func TestSettingsListTriggersAndActivityShowsFirings(t *testing.T) {
	ws := t.TempDir()
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(user, []byte(`[[workspaces."`+ws+`".triggers]]
name = "deployed"
on_event = "deploy"
agent = "demo"
prompt = "Check release {{ .event.data.version }}"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, UserConfigPath: user, Env: func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessOn(t, ws, 160, 50, func(e *core.Engine) attach.Engine {
		return attach.LocalHost(e, attach.LocalOptions{Triggers: cfg.Triggers})
	})
	h.app.opts.Config = cfg
	r, err := trigger.New(h.eng, cfg.Triggers, trigger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Stop(); err != nil {
			t.Error(err)
		}
	})
	h.press(",")
	if s := h.screen(); !strings.Contains(s, `deployed on_event "deploy" → agent demo  last: never fired`) {
		t.Fatalf("the settings tab lists the trigger:\n%s", s)
	}
	h.eng.FireEvent("deploy", `{"version": 7}`)
	// No poll: the firing's notice makes the tab read the triggers again.
	h.until("the firing in the activity and the settings", func() bool {
		s := h.screen()
		return h.logged(`event deploy fired with {"version":7}`) && h.logged("trigger deployed fired") &&
			strings.Contains(s, "started sess")
	})
}

// logged reports whether one of the activity's entries contains text.
func (h *harnessT) logged(text string) bool {
	for _, e := range h.app.activity.Newest(activity.Limit) {
		if strings.Contains(e.Text, text) {
			return true
		}
	}
	return false
}
