package tui

import (
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/enginetest"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/files"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/terminal"
)

// farToken is the bearer token of the engine "on the other machine".
const farToken = "c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ff"

// serveFar opens a real engine on ws and serves its API on a loopback TCP
// port behind the token guard, as `atelier serve --listen` does; it
// returns the URL.
func serveFar(t *testing.T, ws string) (*core.Engine, string) {
	t.Helper()
	return serveFarWith(t, ws, func(*core.Engine) api.Options { return api.Options{} })
}

// serveFarWith is serveFar with the API's options made by opts over the
// engine (what the host runs beside it: workflows, triggers).
func serveFarWith(t *testing.T, ws string, opts func(*core.Engine) api.Options) (*core.Engine, string) {
	t.Helper()
	demo := &harness.Demo{Pace: 100 * time.Microsecond, Wait: 20 * time.Millisecond}
	eng, err := core.Open(ws, core.Options{Agents: core.DemoResolver{Demo: demo}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := opts(eng)
	o.Version = "test"
	srv := api.NewServer(eng, o)
	t.Cleanup(func() { // after the HTTP server's, which Serve registers next
		srv.Close()
		closeEngine(t, eng)
	})
	enginetest.Serve(t, l, &http.Server{Handler: api.Remote(srv, api.RemoteOptions{Token: farToken, Hosts: []string{"127.0.0.1"}}),
		ReadHeaderTimeout: 5 * time.Second})
	return eng, "http://" + l.Addr().String()
}

// changesUntil follows the attached studio's change stream as Run does,
// feeding the batches to the harness (and each change to seen) until
// cond holds.
func (h *harnessT) changesUntil(w attach.Watch, what string, cond func() bool, seen func(afiles.Change)) {
	h.t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case batch, ok := <-w.Events():
			if !ok {
				h.t.Fatalf("the change stream ended waiting for %s", what)
			}
			if seen != nil {
				for _, c := range batch {
					seen(c)
				}
			}
			h.send(files.Changes(batch))
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, h.screen())
		}
	}
}

// attachedStudio opens a studio attached to the engine served at url,
// as `atelier attach` does: its own view of the workspace is a folder
// that does not exist, so everything it shows comes over the API.
func attachedStudio(t *testing.T, url string) *App {
	t.Helper()
	c, err := client.New(url, client.Options{Token: farToken, Label: "studio"})
	if err != nil {
		t.Fatal(err)
	}
	here := filepath.Join(t.TempDir(), "not-the-workspace") // never made
	remote := attach.NewRemote(attach.RemoteOptions{Workspace: here, Client: c})
	t.Cleanup(remote.Close)
	app, err := New(Options{Engine: remote, Attached: true, Remote: url, Files: remote.Files(), Workspace: here, NoColor: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	return app
}

// TestAttachStudio: the studio attached to an engine served on another
// machine (a workspace the test serves over TCP, which the studio is
// given no path to: its own view of the workspace is a folder that does
// not exist) shows the sessions, lists the remote tree, opens a file,
// saves an edit through the API (the serving side's file changes), and
// shows a file created and a file changed on the serving side; the
// tree's blame comes from the served history; the status line says where
// it is attached.
func TestAttachStudio(t *testing.T) {
	far := t.TempDir()
	writeFile(t, filepath.Join(far, "main.go"), "package main\n")
	writeFile(t, filepath.Join(far, "lib", "a.go"), "package lib\n")
	eng, url := serveFar(t, far)
	rec, err := eng.Create(core.CreateOptions{Title: "far session", Agent: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	h0 := eng.History()
	if h0 == nil {
		t.Fatalf("no history: %v", eng.HistoryError())
	}
	writeFile(t, filepath.Join(far, "main.go"), "package main\n\nfunc main() {}\n")
	if _, err := h0.CommitTurn(t.Context(), history.TurnCommit{SessionID: rec.ID, Turn: 1, Summary: "wrote main", Changed: []string{"main.go"}}); err != nil {
		t.Fatal(err)
	}

	app := attachedStudio(t, url)
	if app.ownWS != nil || app.work.host != nil || app.act.actlog != nil {
		t.Fatal("the attached studio opened this machine's folder, terminal host or activity file")
	}
	h := &harnessT{t: t, app: app, eng: eng}
	w, err := app.opts.Files.Watch(app.ignore)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	h.run(app.Init())
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})

	h.until("the serving side's session", func() bool { return strings.Contains(h.screen(), "far session") })
	s := h.screen()
	for _, want := range []string{"main.go", "lib", "attached to " + url} {
		if !strings.Contains(s, want) {
			t.Errorf("the attached studio lacks %q:\n%s", want, s)
		}
	}

	et := openInEditor(t, h, "main.go")
	if !strings.Contains(h.screen(), "func main() {}") {
		t.Fatalf("the remote file is not shown:\n%s", h.screen())
	}
	if !strings.Contains(h.screen(), "turn 1 of") {
		t.Errorf("the tree's blame does not come from the served history:\n%s", h.screen())
	}
	// A change on the serving side to the open (clean) file reloads it.
	writeFile(t, filepath.Join(far, "main.go"), "package main\n\nfunc main() { println(\"theirs\") }\n")
	h.changesUntil(w, "the editor reloaded", func() bool { return strings.Contains(h.screen(), `println("theirs")`) }, nil)

	// An edit saved through the API changes the serving side's file, and
	// its change comes back as the operator's.
	h.press("down", "down", "end")
	h.typeText(" // edited from afar")
	h.press("ctrl+s")
	want := "package main\n\nfunc main() { println(\"theirs\") } // edited from afar\n"
	got, err := os.ReadFile(filepath.Join(far, "main.go"))
	if err != nil || string(got) != want || et.Dirty() {
		t.Fatalf("the save through the API: %q, %v, dirty %v; status %q", got, err, et.Dirty(), h.app.status.text)
	}
	echo := false
	h.changesUntil(w, "the save's change", func() bool { return echo }, func(c afiles.Change) {
		echo = echo || (c.Path == "main.go" && c.By == afiles.Operator)
	})
	if h.app.dlg.dialog != nil || et.Dirty() {
		t.Fatalf("the studio's own save came back as someone else's change:\n%s", h.screen())
	}

	// A file made on the serving side shows in the tree.
	writeFile(t, filepath.Join(far, "far.txt"), "made over there\n")
	h.changesUntil(w, "far.txt in the tree", func() bool { return strings.Contains(h.screen(), "far.txt") }, nil)

	// The session's turn history, its diff and a restore's preview come
	// from the served history.
	h.app.setFocus(focusSessions)
	h.send(keys.Press("enter"))
	if h.app.tabs.visibleSession() != rec.ID {
		t.Fatalf("the session's tab should open:\n%s", h.screen())
	}
	h.press("h")
	h.until("turn 1 in the history", func() bool {
		s := h.screen()
		return strings.Contains(s, "◆ turn 1") && strings.Contains(s, "M main.go")
	})
	h.press("j", "enter")
	if _, ok := h.app.tabs.current().(*diffTab); !ok || !strings.Contains(h.screen(), "+func main() {}") {
		t.Fatalf("the turn's diff of main.go; status %q\n%s", h.app.status.text, h.screen())
	}
	h.press("ctrl+w", "k", "b")
	if _, ok := h.app.dlg.dialog.(*dialog.Choice); !ok || !strings.Contains(h.screen(), "Restore before turn 1") {
		t.Fatalf("b previews the restore; status %q\n%s", h.app.status.text, h.screen())
	}
	h.press("n")

	// Quitting with a session running there says where it runs on.
	if err := eng.As("").Start(rec.ID); err != nil {
		t.Fatal(err)
	}
	h.until("the session running", func() bool { return len(h.app.live.running()) == 1 })
	h.app.setFocus(focusSessions)
	h.press("q")
	if !h.quit || !strings.Contains(h.app.exitNote, "1 session keeps running on "+url+" · `atelier attach "+url+"` reattaches") {
		t.Errorf("quitting: %v, %q", h.quit, h.app.exitNote)
	}

	if _, err := os.Lstat(h.app.opts.Workspace); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the studio made its own view of the workspace: %v", err)
	}
}

// TestAttachStudioNeedsItsFiles: a studio attached to another machine
// without that machine's files is refused, never opened on a folder here.
func TestAttachStudioNeedsItsFiles(t *testing.T) {
	_, url := serveFar(t, t.TempDir())
	c, err := client.New(url, client.Options{Token: farToken, Label: "studio"})
	if err != nil {
		t.Fatal(err)
	}
	remote := attach.NewRemote(attach.RemoteOptions{Workspace: t.TempDir(), Client: c})
	t.Cleanup(remote.Close)
	if _, err := New(Options{Engine: remote, Attached: true, Remote: url, NoColor: true}); !errors.Is(err, ErrNoFiles) {
		t.Fatalf("New without the remote files: %v, want ErrNoFiles", err)
	}
}

// TestAttachStudioCreates: a session made with the new-session form of a
// studio attached to another machine is that engine's, with its default
// agent, on a host that does not let TCP clients choose agents or
// policies: the form's defaults are left to the engine.
func TestAttachStudioCreates(t *testing.T) {
	eng, url := serveFar(t, t.TempDir())
	app := attachedStudio(t, url)
	h := &harnessT{t: t, app: app, eng: eng}
	h.run(app.Init())
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.press("n")
	if !strings.Contains(h.screen(), EngineDefaultAgent) {
		t.Fatalf("the form should offer the engine's default agent:\n%s", h.screen())
	}
	h.typeText("from afar")
	h.press("tab")
	h.typeText("say hi")
	h.press("enter")
	if h.app.status.err {
		t.Fatalf("create: %q", h.app.status.text)
	}
	snap := eng.Snapshot()
	if len(snap.Sessions) != 1 || snap.Sessions[0].Title != "from afar" || snap.Sessions[0].Agent != "demo" {
		t.Fatalf("the serving side's sessions: %+v", snap.Sessions)
	}
	h.until("the new session", func() bool { return strings.Contains(h.screen(), "from afar") })
}

// farStudio serves far's engine over TCP and opens a studio attached to
// it, at 120x40, with /bin/sh for its terminals.
func farStudio(t *testing.T, far string) *harnessT {
	t.Helper()
	return farStudioWith(t, far, func(*core.Engine) api.Options { return api.Options{} })
}

// farStudioWith is farStudio on a host whose API options opts makes.
func farStudioWith(t *testing.T, far string, opts func(*core.Engine) api.Options) *harnessT {
	t.Helper()
	t.Setenv("SHELL", "/bin/sh")
	eng, url := serveFarWith(t, far, opts)
	app := attachedStudio(t, url)
	h := &harnessT{t: t, app: app, eng: eng}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	return h
}

// TestAttachStudioTerminal: a terminal of a studio attached to another
// machine runs there, in the served workspace, through the engine's API
// (this machine has no terminal host for it).
func TestAttachStudioTerminal(t *testing.T) {
	far := t.TempDir()
	h := farStudio(t, far)
	cmd := h.app.work.openTerminal("terminal", nil)
	if cmd == nil {
		t.Fatalf("no terminal: %q", h.app.status.text)
	}
	started, ok := cmd().(terminal.Started)
	if !ok || started.Err != nil {
		t.Fatalf("the terminal did not start: %+v", started)
	}
	h.app.Update(started)
	typeIn(t, h, `echo "in-$(basename "$PWD")-$((6*7))"`, "in-"+filepath.Base(far)+"-42")
}

// TestKeptListWhileOpeningATerminal: the list of the host's kept
// terminals, asked for as the studio starts, can come back after a
// terminal the operator just opened reached the host but before its tab
// knows its id; that terminal must not open a second tab as "kept".
func TestKeptListWhileOpeningATerminal(t *testing.T) {
	h := farStudio(t, t.TempDir())
	open := h.app.work.openTerminal("terminal", nil)
	started, ok := open().(terminal.Started) // the terminal runs on the host now
	if !ok || started.Err != nil {
		t.Fatalf("the terminal did not start: %+v", started)
	}
	kept, ok := h.app.work.keptTerminals()().(keptTerminalsMsg)
	if !ok || kept.err != nil || len(kept.list) != 1 {
		t.Fatalf("the host's kept terminals: %+v", kept)
	}
	// The list arrives first: nothing is reattached yet.
	if _, cmd := h.app.Update(kept); cmd != nil {
		t.Fatalf("the list reattached the terminal being opened: %T", cmd())
	}
	h.app.Update(started)
	if h.app.work.keptLater != nil || h.app.work.termsOpening != 0 {
		t.Fatalf("the list was not taken up: %+v, %d opening", h.app.work.keptLater, h.app.work.termsOpening)
	}
	if cmd := h.app.work.reattach(kept); cmd != nil {
		t.Fatalf("the studio's own terminal would open twice: %T", cmd())
	}
	if n := h.app.keptTabs(); n != 1 {
		t.Fatalf("%d terminal tabs, want 1", n)
	}
}

// TestAttachedStudioReadsRunsOnceConnected: an attached studio's first
// snapshot is empty and the host's arrives as a resync, once the feed has
// reached a host (one it may have had to start). Reading the workflow
// runs before then found no socket and logged "the workflow runs could
// not be read" at every start that started a host; the runs are read on
// the resync instead.
func TestAttachedStudioReadsRunsOnceConnected(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	if err := l.Close(); err != nil { // nothing listens: no host yet
		t.Fatal(err)
	}
	app := attachedStudio(t, url)
	h := &harnessT{t: t, app: app}
	h.send(tea.WindowSizeMsg{Width: 240, Height: 50})
	h.run(app.Init())
	if sc := h.screen(); strings.Contains(sc, "workflow runs could") {
		t.Fatalf("the studio read the runs before it reached a host:\n%s", sc)
	}
	if !app.set.runsBusy && app.set.runs == nil {
		// Not read yet: the resync reads them.
		cmd := func() tea.Cmd { _, cmd := app.Update(resyncMsg(core.Snapshot{})); return cmd }()
		if cmd == nil || !app.set.runsBusy {
			t.Fatal("the resync does not read the runs")
		}
	}
}

// TestAttachedEditorSeesAChangeJustAfterItsSave: an outside change to an
// open file moments after the studio saved it reloads the editor, and the
// next save goes through. Before, the host still took the path's changes
// for the operator's save (its claim lasts seconds) and the editor skipped
// the operator's changes: the change never showed and the next save was
// refused.
func TestAttachedEditorSeesAChangeJustAfterItsSave(t *testing.T) {
	far := t.TempDir()
	writeFile(t, filepath.Join(far, "main.go"), "package main\n")
	_, url := serveFar(t, far)
	app := attachedStudio(t, url)
	h := &harnessT{t: t, app: app}
	w, err := app.opts.Files.Watch(app.ignore)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	h.run(app.Init())
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	et := openInEditor(t, h, "main.go")
	h.press("end")
	h.typeText(" // mine")
	h.press("ctrl+s")
	if got, err := os.ReadFile(filepath.Join(far, "main.go")); err != nil || string(got) != "package main // mine\n" || et.Dirty() {
		t.Fatalf("the save: %q, %v, dirty %v; status %q", got, err, et.Dirty(), h.app.status.text)
	}
	// Another program writes the file while the save's claim still holds.
	writeFile(t, filepath.Join(far, "main.go"), "package main // theirs\n")
	h.changesUntil(w, "the editor reloaded", func() bool { return strings.Contains(h.screen(), "package main // theirs") }, nil)
	if h.app.dlg.dialog != nil || et.Dirty() {
		t.Fatalf("a clean editor should reload, not ask:\n%s", h.screen())
	}
	h.press("end")
	h.typeText(" // again")
	h.press("ctrl+s")
	if got, err := os.ReadFile(filepath.Join(far, "main.go")); err != nil || string(got) != "package main // theirs // again\n" {
		t.Fatalf("the next save: %q, %v; status %q", got, err, h.app.status.text)
	}
}
