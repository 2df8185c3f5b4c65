package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/keys"
)

// TestKeyOverridesFromTheConfiguration loads a real config.toml whose
// [keys] table rebinds some actions, names one that does not exist and
// gives others keys that collide: the good ones apply, every bad one is
// named in the status line and ignored.
func TestKeyOverridesFromTheConfiguration(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	writeFile(t, user, `[keys]
quit = "ctrl+q"
"sessions.new" = "ctrl+n"
"files.delete" = "x"
"files.rename" = "j"
help = "d"
"session.history" = "r"
"bogus.action" = "z"
"editor.save" = "ctrl+p"
"confirm.no" = "ctrl+g"
`)
	cfg, err := config.Load(config.LoadOptions{UserConfigPath: user})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	writeFiles(t, ws, "a.txt")
	eng, err := core.Open(ws, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEngine(t, eng) })
	app, err := New(Options{Engine: attach.Local(eng), NoColor: true, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	h := &harnessT{t: t, app: app, eng: eng}
	h.run(app.Init())
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})

	if !app.status.err {
		t.Fatalf("the bad overrides are an error in the status line: %q", app.status.text)
	}
	for _, want := range []string{
		`keys.bogus.action: no such action`,
		`keys.files.rename = "j": j is already "next entry" in Files; ignored`,
		`keys.help = "d": d is "delete (asks first)" in Sessions, which a global key would shadow; ignored`,
		`keys.session.history = "r": r is already "run: start a created session, resume a paused one" in Session tab; ignored`,
	} {
		if !strings.Contains(app.status.text, want) {
			t.Errorf("the status line lacks %q:\n%s", want, app.status.text)
		}
	}
	for _, bad := range []string{"quit", "sessions.new", "files.delete", "editor.save", "confirm.no"} {
		if strings.Contains(app.status.text, "keys."+bad+" ") || strings.Contains(app.status.text, "keys."+bad+":") {
			t.Errorf("%s is a good override, not an error: %s", bad, app.status.text)
		}
	}

	// The welcome screen names the configured keys, not the defaults.
	if s := h.screen(); !strings.Contains(s, "ctrl+n  start a session") || !strings.Contains(s, "ctrl+q  quit") {
		t.Errorf("the welcome should name the configured keys:\n%s", s)
	}

	// The good ones act; the keys they replaced do not.
	h.press("q")
	if h.quit {
		t.Fatal("q no longer quits")
	}
	h.send(keys.Press("ctrl+n"))
	if _, ok := app.dlg.dialog.(*dialog.Form); !ok {
		t.Fatal("ctrl+n opens the new-session form")
	}
	h.press("esc", "tab") // the files pane
	h.press("x")
	if _, ok := app.dlg.dialog.(*dialog.Confirm); !ok || !strings.Contains(h.screen(), "Delete the file a.txt?") {
		t.Fatalf("x deletes in the files pane:\n%s", h.screen())
	}
	// A dialog takes its kind's table with the overrides: the
	// confirmation declines on ctrl+g, says so, and esc no longer does.
	if !strings.Contains(h.screen(), "ctrl+g keep things as they are") {
		t.Errorf("the confirmation names the configured key:\n%s", h.screen())
	}
	h.press("esc")
	if app.dlg.dialog == nil {
		t.Fatal("esc still declines the confirmation after confirm.no was rebound")
	}
	h.send(keys.Press("ctrl+g"))
	if app.dlg.dialog != nil {
		t.Fatal("ctrl+g does not decline the confirmation")
	}
	h.press("m")
	if _, ok := app.dlg.dialog.(*dialog.Prompt); !ok {
		t.Fatal("the rename override was ignored: m still renames")
	}
	h.press("esc", "?")
	if s := h.screen(); !strings.Contains(s, "x  ") || strings.Contains(s, "d  delete the selected entry") {
		t.Fatalf("the help shows the keys in force:\n%s", s)
	}
	h.press("esc")
	h.send(keys.Press("ctrl+q"))
	if !h.quit {
		t.Fatal("ctrl+q quits")
	}
}
