package tui

import (
	"image/color"
	"time"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/themes"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/core"
	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/internal/golden"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/files"
	"github.com/atelier-studio/atelier/tui/keys"
)

// editorWorkspace is a workspace with a Go file and a binary one, and the
// studio open on it with the file tree focused.
func editorWorkspace(t *testing.T, w, hgt int) (*harnessT, string) {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n")
	writeFile(t, filepath.Join(ws, "blob.bin"), "\x00\x01\x02binary")
	h := newHarness(t, ws, w, hgt)
	h.app.opts.Now = newClock().Now
	return h, ws
}

// openInEditor opens a file through the file tree, as the operator would.
func openInEditor(t *testing.T, h *harnessT, name string) *editorTab {
	t.Helper()
	h.app.setFocus(focusFiles)
	for range 10 {
		if r, ok := h.app.files.Selected(); ok && r.Name == name {
			break
		}
		h.press("down")
	}
	h.press("enter")
	et, ok := h.app.tabs.current().(*editorTab)
	if !ok {
		t.Fatalf("no editor tab for %s; status %q\n%s", name, h.app.status.text, h.screen())
	}
	return et
}

func TestEditorOpenEditSave(t *testing.T) {
	h, ws := editorWorkspace(t, 120, 40)
	et := openInEditor(t, h, "main.go")
	if !et.raw() || h.app.scr.focus != focusCenter {
		t.Fatal("a new editor should have the keys")
	}
	h.press("down", "down", "end")
	h.typeText(" // entry")
	if !strings.Contains(h.screen(), "main.go ●") {
		t.Fatalf("the tab should show the unsaved mark:\n%s", h.screen())
	}
	h.press("ctrl+c") // copies (nothing selected): must not quit
	if h.quit || h.app.dlg.dialog != nil {
		t.Fatal("ctrl+c in the editor is the editor's")
	}
	h.press("ctrl+s")
	got, _ := os.ReadFile(filepath.Join(ws, "main.go"))
	if !strings.Contains(string(got), "func main() { // entry\n") || et.Dirty() {
		t.Fatalf("saved %q, dirty %v", got, et.Dirty())
	}
	checkSize(t, h.screen(), 120, 40)
	golden.Check(t, "editor-tab-120x40.txt", h.screen())

	// The release chord gives the keys back; global keys then act.
	h.press("ctrl+]")
	if et.raw() {
		t.Fatal("ctrl+] should release the keys")
	}
	h.press("enter")
	if !et.raw() {
		t.Fatal("enter should give the keys to the editor again")
	}
	// Closing unsaved work asks; k keeps editing, d discards.
	h.typeText("x")
	h.press("ctrl+w")
	if _, ok := h.app.dlg.dialog.(*dialog.Choice); !ok {
		t.Fatalf("closing unsaved work should ask:\n%s", h.screen())
	}
	h.press("k")
	if h.app.tabs.len() != 1 {
		t.Fatal("k keeps the tab")
	}
	h.press("ctrl+w", "d")
	if h.app.tabs.len() != 0 {
		t.Fatal("d discards and closes")
	}
	got, _ = os.ReadFile(filepath.Join(ws, "main.go"))
	if strings.Contains(string(got), "entryx") {
		t.Fatal("a discarded change reached the disk")
	}
}

func TestBinaryFileRefused(t *testing.T) {
	h, _ := editorWorkspace(t, 120, 40)
	h.app.setFocus(focusFiles)
	for range 5 {
		if r, ok := h.app.files.Selected(); ok && r.Name == "blob.bin" {
			break
		}
		h.press("down")
	}
	h.press("enter")
	if h.app.tabs.len() != 0 {
		t.Fatal("a binary file opened in the editor")
	}
	if !h.app.status.err || !strings.Contains(h.app.status.text, "blob.bin is a binary file") {
		t.Fatalf("status %q", h.app.status.text)
	}
}

func TestFileChangedOnDiskWhileDirty(t *testing.T) {
	h, ws := editorWorkspace(t, 120, 40)
	et := openInEditor(t, h, "main.go")
	h.typeText("// mine\n")
	// An agent rewrites the file; the watcher's batch names it.
	theirs := "package main\n\nfunc main() {\n\tprintln(\"theirs\")\n}\n"
	writeFile(t, filepath.Join(ws, "main.go"), theirs)
	h.send(files.Changes{{Kind: afiles.Changed, Path: "main.go", By: afiles.External}})
	if _, ok := h.app.dlg.dialog.(*dialog.Choice); !ok {
		t.Fatalf("a dirty editor should ask about the change on disk:\n%s", h.screen())
	}
	s := h.screen()
	for _, want := range []string{"main.go changed on disk", "another program", "-// mine", "+\tprintln(\"theirs\")", "reload"} {
		if !strings.Contains(s, strings.ReplaceAll(want, "\t", "    ")) {
			t.Errorf("the prompt lacks %q:\n%s", want, s)
		}
	}
	h.press("esc") // keep mine
	if h.app.dlg.dialog != nil {
		t.Fatal("esc should close the prompt")
	}
	if !et.Dirty() || !strings.Contains(et.Buffer().Text(), "// mine") {
		t.Fatal("keep should keep the editor's text, unsaved")
	}
	// Another change; this time reload.
	writeFile(t, filepath.Join(ws, "main.go"), theirs+"// more\n")
	h.send(files.Changes{{Kind: afiles.Changed, Path: "main.go", By: afiles.External}})
	if _, ok := h.app.dlg.dialog.(*dialog.Choice); !ok {
		t.Fatalf("the editor, still dirty, should ask again:\n%s", h.screen())
	}
	h.press("r")
	if et.Dirty() || et.Buffer().Text() != strings.TrimSuffix(theirs+"// more\n", "\n") {
		t.Fatalf("reload: dirty %v, %q", et.Dirty(), et.Buffer().Text())
	}
	// A clean editor reloads by itself; the operator's own save is no change.
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	h.send(files.Changes{{Kind: afiles.Changed, Path: "main.go", By: afiles.External}})
	if h.app.dlg.dialog != nil || et.Buffer().Text() != "package main" {
		t.Fatalf("a clean editor should reload without asking: %q", et.Buffer().Text())
	}
	h.send(files.Changes{{Kind: afiles.Changed, Path: "main.go", By: afiles.Operator}})
	if h.app.dlg.dialog != nil {
		t.Fatal("the operator's own change needs no question")
	}
}

func TestDestroyRefusedWithoutConfirmation(t *testing.T) {
	ws := t.TempDir()
	called := 0
	c := newClock()
	eng, err := core.Open(ws, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEngine(t, eng) })
	app, err := New(Options{Engine: attach.Local(eng), NoColor: true, Now: c.Now, Destroy: func() error { called++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	h := &harnessT{t: t, app: app, eng: eng}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.press(",")
	if _, ok := h.app.tabs.current().(*settingsTab); !ok {
		t.Fatal(", should open the settings tab")
	}
	h.press("D")
	if _, ok := h.app.dlg.dialog.(*dialog.Typed); !ok {
		t.Fatalf("D should ask for the folder's name:\n%s", h.screen())
	}
	h.typeText("not-the-name")
	h.press("enter")
	if called != 0 || h.app.dlg.dialog == nil || !strings.Contains(h.screen(), "nothing was done") {
		t.Fatalf("a wrong name must refuse (called %d):\n%s", called, h.screen())
	}
	h.press("esc")
	if called != 0 || h.app.dlg.dialog != nil {
		t.Fatal("esc must cancel")
	}
	h.press("enter") // no dialog: enter alone does nothing
	if called != 0 {
		t.Fatal("destroyed without a confirmation")
	}
	h.press("D")
	h.typeText(filepath.Base(ws))
	h.press("enter")
	if called != 1 {
		t.Fatalf("the typed name should confirm (called %d)", called)
	}
	if _, err := os.Stat(filepath.Join(ws, ".state")); err != nil {
		t.Fatalf("the hook is what destroys; the studio itself removed .state/: %v", err)
	}
}

func TestPaletteRunsAnAction(t *testing.T) {
	h, _ := editorWorkspace(t, 120, 40)
	h.press(":")
	p, ok := h.app.dlg.dialog.(*dialog.Palette)
	if !ok {
		t.Fatal(": should open the palette")
	}
	if len(p.Shown()) < 20 {
		t.Fatalf("the palette lists %d actions", len(p.Shown()))
	}
	h.typeText("settings")
	if !strings.Contains(h.screen(), ",") {
		t.Fatal("the palette shows each action's key")
	}
	h.press("enter")
	if _, ok := h.app.tabs.current().(*settingsTab); !ok {
		t.Fatalf("choosing settings should open them:\n%s", h.screen())
	}
}

func TestKeysFromStringsRoundTrip(t *testing.T) {
	for _, s := range Scopes() {
		for _, b := range s.Bindings {
			for _, k := range b.Keys() {
				if got := keys.Press(k).String(); got != k {
					t.Errorf("%s: %q builds a key that reads %q", s.Name, k, got)
				}
			}
		}
	}
}

func TestCopyModeReleasesTheMouse(t *testing.T) {
	h, _ := editorWorkspace(t, 120, 40)
	if h.app.View().MouseMode == tea.MouseModeNone {
		t.Fatal("the studio should own the mouse")
	}
	h.press("M")
	if h.app.View().MouseMode != tea.MouseModeNone || !strings.Contains(h.screen(), "COPY MODE") {
		t.Fatal("M should release the mouse")
	}
	h.press("M")
	if h.app.View().MouseMode == tea.MouseModeNone {
		t.Fatal("M again should take it back")
	}
}

func TestNarrowLayoutCollapsesTheSides(t *testing.T) {
	h, _ := editorWorkspace(t, 90, 30)
	if !strings.Contains(h.screen(), "Sessions") {
		t.Fatal("with no tab, the side panes show")
	}
	openInEditor(t, h, "main.go")
	s := h.screen()
	checkSize(t, s, 90, 30)
	if strings.Contains(s, "Sessions") || strings.Contains(s, "Action required") {
		t.Fatalf("a tab in a narrow terminal should collapse the sides:\n%s", s)
	}
	h.press("ctrl+]", "\\")
	if s := h.screen(); !strings.Contains(s, "Sessions") {
		t.Fatalf("\\ should show the side panes:\n%s", s)
	}
	checkSize(t, h.screen(), 90, 30)
}

func TestSettingsShowConfigAndTrust(t *testing.T) {
	ws := t.TempDir()
	userDir := t.TempDir()
	user := filepath.Join(userDir, "config.toml")
	writeFile(t, user, "[ui]\nnotifications = \"bell\"\n")
	writeFile(t, filepath.Join(ws, ".atelier.toml"), "default_agent = \"demo\"\n")
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, UserConfigPath: user, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := core.Open(ws, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEngine(t, eng) })
	app, err := New(Options{Engine: attach.Local(eng), NoColor: true, Config: cfg, Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	h := &harnessT{t: t, app: app, eng: eng}
	h.send(tea.WindowSizeMsg{Width: 250, Height: 60})
	if app.set.notify != "bell" {
		t.Fatalf("notifications from the config: %q", app.set.notify)
	}
	h.press(",")
	s := h.screen()
	for _, want := range []string{"ui.notifications", `"bell"`, user + ":2", "not trusted: its agents"} {
		if !strings.Contains(s, want) {
			t.Errorf("the settings tab lacks %q:\n%s", want, s)
		}
	}
	h.press("t")
	if s := h.screen(); !strings.Contains(s, "  trusted  ·") || strings.Contains(s, "not trusted: its agents") {
		t.Fatalf("t should trust the file:\n%s", s)
	}
	h.press("u")
	if !strings.Contains(h.screen(), "not trusted: its agents") {
		t.Fatal("u should stop trusting it")
	}
	h.press("b")
	if app.set.notify != "osc" {
		t.Fatalf("b cycles notifications: %q", app.set.notify)
	}
}

func TestLightBackgroundSwitchesTheTheme(t *testing.T) {
	ws := t.TempDir()
	eng, err := core.Open(ws, core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEngine(t, eng) })
	app, err := New(Options{Engine: attach.Local(eng)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	dark := app.st.Accent.Render("x")
	app.Update(tea.BackgroundColorMsg{Color: color.White})
	if app.st.Accent.Render("x") == dark {
		t.Fatal("a light background should switch to the light theme")
	}
	if app.st.Accent.Render("x") != themes.Build(themes.Light(), false).Accent.Render("x") {
		t.Fatal("not the light theme")
	}
	fixed, err := New(Options{Engine: attach.Local(eng), Theme: "high-contrast"})
	if err != nil {
		t.Fatal(err)
	}
	defer fixed.Close()
	before := fixed.st.Accent.Render("x")
	fixed.Update(tea.BackgroundColorMsg{Color: color.White})
	if fixed.st.Accent.Render("x") != before {
		t.Fatal("a chosen theme must not follow the background")
	}
	if _, err := New(Options{Engine: attach.Local(eng), Theme: "plaid"}); err == nil {
		t.Fatal("an unknown theme should fail")
	}
}

func TestGrantsOfASessionWithoutAny(t *testing.T) {
	h := goldenWorkspace(t)
	h.press("enter")
	h.until("the transcript", func() bool { return !strings.Contains(h.screen(), "loading") })
	h.press("P")
	if !strings.Contains(h.app.status.text, "no \"allow for this session\" grants") {
		t.Fatalf("status %q", h.app.status.text)
	}
}

func TestOpenInEditorRunsItInATerminalTab(t *testing.T) {
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "cat -n")
	h, _ := editorWorkspace(t, 120, 40)
	openInEditor(t, h, "main.go")
	h.press("ctrl+o") // runs until cat ends: the harness runs each command to its answer
	tt, ok := h.app.tabs.current().(*termTab)
	if !ok {
		t.Fatalf("ctrl+o should open a terminal tab; status %q", h.app.status.text)
	}
	if !tt.Exited() {
		t.Fatal("cat should have ended")
	}
	s := h.screen()
	if !strings.Contains(s, "$EDITOR main.go") && !strings.Contains(s, "✓ $EDITOR main.go") {
		t.Errorf("the tab's label:\n%s", s)
	}
	if !strings.Contains(s, `println("hi")`) || !strings.Contains(s, "exit code 0") {
		t.Errorf("the editor's output and end:\n%s", s)
	}
}

// TestClosingATabKeepsTheKeys: closing an editor's tab shows the next
// tab without handing it the keys: a key meant for the studio does not
// land in another file. The studio's frame and status line say when an
// editor has them.
// twoEditors opens main.go, takes the keys back, then opens other.go,
// which has them.
func twoEditors(t *testing.T) (h *harnessT, first, second *editorTab) {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	writeFile(t, filepath.Join(ws, "other.go"), "package other\n")
	h = newHarness(t, ws, 120, 40)
	first = openInEditor(t, h, "main.go")
	h.press("ctrl+]")
	return h, first, openInEditor(t, h, "other.go")
}

func TestClosingATabKeepsTheKeys(t *testing.T) {
	h, first, second := twoEditors(t)
	if !second.raw() || !strings.Contains(h.screen(), "keys → editor") {
		t.Fatalf("a freshly opened editor has the keys and the status line says so:\n%s", h.screen())
	}
	h.press("ctrl+]")
	h.press("ctrl+w")
	if h.app.tabs.current() != tab(first) {
		t.Fatalf("the first editor should be in view after closing the second: %d tabs, dialog %v\n%s", h.app.tabs.len(), h.app.dlg.dialog != nil, h.screen())
	}
	if first.raw() || h.app.rawFocus() != nil {
		t.Fatal("closing a tab handed the keys to the next one")
	}
	if strings.Contains(h.screen(), "keys →") {
		t.Errorf("the status line says a tab has the keys:\n%s", h.screen())
	}
}

// TestTerminalScrollbackWithoutTheKeys: shift+pgup and shift+pgdown read
// a terminal's scrollback whether or not it has the keys.
func TestTerminalScrollbackWithoutTheKeys(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.run(h.app.work.openTerminal("seq", []string{"seq", "1", "300"})) // runs to its end
	tt, ok := h.app.tabs.current().(*termTab)
	if !ok || !tt.Exited() {
		t.Fatalf("the terminal tab: %v", ok)
	}
	h.press("ctrl+]")
	if h.app.rawFocus() != nil {
		t.Fatal("ctrl+] should give the keys back to the studio")
	}
	before := h.screen()
	if !strings.Contains(before, "300") {
		t.Fatalf("the newest output:\n%s", before)
	}
	h.press("shift+pgup")
	if after := h.screen(); after == before || strings.Contains(after, "│300") {
		t.Fatalf("shift+pgup without the keys did not scroll back:\n%s", after)
	}
	h.press("shift+pgdown")
	if !strings.Contains(h.screen(), "300") {
		t.Fatalf("shift+pgdown came back:\n%s", h.screen())
	}
}

// TestOpenTabsComeBack: the session, file and Workspaces tabs open when a
// studio closes are open again in the next one, in order, none with the keys; a
// file removed since does not come back.
func TestOpenTabsComeBack(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	writeFile(t, filepath.Join(ws, "gone.go"), "package main\n")
	h := newHarness(t, ws, 120, 40)
	rec, err := h.eng.Create(core.CreateOptions{Title: "kept", Instructions: "x"})
	if err != nil {
		t.Fatal(err)
	}
	h.until("the session", func() bool { _, ok := h.app.live.recs[rec.ID]; return ok })
	h.run(h.app.openSession(rec.ID, true))
	openInEditor(t, h, "main.go")
	h.press("ctrl+]")
	openInEditor(t, h, "gone.go")
	h.press("ctrl+]")
	h.run(h.app.inst.openWorkspaces())
	if err := h.app.mem.keep(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(ws, "gone.go")); err != nil {
		t.Fatal(err)
	}
	if err := h.eng.Close(); err != nil {
		t.Fatal(err)
	}

	h2 := newHarness(t, ws, 120, 40)
	var got []string
	for _, tb := range h2.app.tabs.list {
		switch tb := tb.(type) {
		case *sessionTab:
			got = append(got, "session "+tb.Record().Title)
		case *editorTab:
			got = append(got, "file "+tb.Path())
			if tb.raw() {
				t.Errorf("the restored %s took the keys", tb.Path())
			}
		case *workspacesTab:
			got = append(got, "workspaces")
		}
	}
	if strings.Join(got, ", ") != "session kept, workspaces, file main.go" { // files come once read
		t.Fatalf("the tabs that came back: %v", got)
	}
	if h2.app.rawFocus() != nil {
		t.Fatal("a restored tab has the keys")
	}
}

// TestEditorOfADeletedFile: an open file deleted on disk is marked so in
// its tab at once, and saving asks before it writes the file again.
func TestEditorOfADeletedFile(t *testing.T) {
	h, ws := editorWorkspace(t, 120, 40)
	openInEditor(t, h, "main.go")
	if err := os.Remove(filepath.Join(ws, "main.go")); err != nil {
		t.Fatal(err)
	}
	h.send(files.Changes{{Kind: afiles.Deleted, Path: "main.go", By: afiles.External}})
	if s := h.screen(); !strings.Contains(s, "(deleted)") || !strings.Contains(s, "deleted on disk") {
		t.Fatalf("the deletion should show at once:\n%s", s)
	}
	h.press("ctrl+s")
	if h.app.dlg.dialog == nil {
		t.Fatal("saving a deleted file should ask first")
	}
	if _, err := os.Stat(filepath.Join(ws, "main.go")); err == nil {
		t.Fatal("the file was written before the answer")
	}
	h.press("n")
	if _, err := os.Stat(filepath.Join(ws, "main.go")); err == nil {
		t.Fatal("n wrote the file")
	}
	h.press("ctrl+s", "y")
	if _, err := os.Stat(filepath.Join(ws, "main.go")); err != nil {
		t.Fatalf("y should write the file again: %v", err)
	}
	if strings.Contains(h.screen(), "(deleted)") {
		t.Errorf("the mark stayed after the file was written again:\n%s", h.screen())
	}
}

// TestOneSaveOneActivityEntry: a save from the editor is one activity
// entry: the watcher's report of the same write (the operator's, or
// unattributed when an engine host wrote it) is not logged again, while a
// session's change of the file, and the operator's later on, still are.
func TestOneSaveOneActivityEntry(t *testing.T) {
	h, _ := editorWorkspace(t, 120, 40)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	h.app.opts.Now = func() time.Time { return now }
	openInEditor(t, h, "main.go")
	h.typeText("x")
	h.press("ctrl+s")
	about := func() int {
		n := 0
		for _, e := range h.app.activity.Newest(h.app.activity.Len()) {
			if strings.Contains(e.Text, "main.go") {
				n++
			}
		}
		return n
	}
	if n := about(); n != 1 {
		t.Fatalf("the save logged %d entries, want 1", n)
	}
	h.send(files.Changes{{Kind: afiles.Changed, Path: "main.go", By: afiles.Operator}})
	h.send(files.Changes{{Kind: afiles.Changed, Path: "main.go", By: afiles.External}})
	if n := about(); n != 1 {
		t.Fatalf("the watcher's echo of the save was logged again: %d entries", n)
	}
	h.send(files.Changes{{Kind: afiles.Changed, Path: "main.go", By: "a-session"}})
	if n := about(); n != 2 {
		t.Fatalf("a session's change right after the save: %d entries, want 2", n)
	}
	now = now.Add(time.Minute)
	h.send(files.Changes{{Kind: afiles.Changed, Path: "main.go", By: afiles.External}})
	if n := about(); n != 3 {
		t.Fatalf("a change a minute later is no echo: %d entries, want 3", n)
	}
}

// TestCyclingTabsKeepsTheKeys: < and > bring an editor into view without
// handing it the keys, so the next < is the studio's (it moves on, and is
// not typed into the file), and a paste then lands in no file.
func TestCyclingTabsKeepsTheKeys(t *testing.T) {
	h, first, second := twoEditors(t)
	h.press("ctrl+]")
	h.press("<")
	if h.app.tabs.current() != tab(first) || first.raw() || h.app.rawFocus() != nil {
		t.Fatalf("< should show the first editor without giving it the keys (raw %v)\n%s", first.raw(), h.screen())
	}
	h.press("<")
	if h.app.tabs.current() != tab(second) || second.raw() {
		t.Fatalf("a second < should move on, not type into the file\n%s", h.screen())
	}
	h.send(tea.PasteMsg{Content: "pasted"})
	if first.Dirty() || second.Dirty() {
		t.Fatalf("a paste with no tab holding the keys reached a file\n%s", h.screen())
	}
	h.press("enter")
	if !second.raw() {
		t.Fatal("enter should still give the keys to the editor in view")
	}
}
