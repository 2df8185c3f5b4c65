package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
)

// TestWorkspaceNamedByItsFolder: a studio opened on "." (atelier run in
// the workspace) names the folder, not ".": its name in the status line
// and the window's title, its whole path for messages.
func TestWorkspaceNamedByItsFolder(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "my-project")
	writeFiles(t, ws, "README.md")
	t.Chdir(ws)
	eng, err := core.Open(ws, core.Options{Agents: core.DemoResolver{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeEngine(t, eng) })
	app, err := New(Options{Engine: attach.Local(eng), NoColor: true, Workspace: "."})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	h := &harnessT{t: t, app: app, eng: eng}
	h.run(app.Init())
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	lines := strings.Split(h.screen(), "\n")
	if status := lines[len(lines)-1]; !strings.HasPrefix(status, "atelier my-project · local · ") {
		t.Fatalf("the status line names the folder: %q", status)
	}
	if title := app.View().WindowTitle; title != "Atelier · my-project" {
		t.Fatalf("window title %q", title)
	}
	if got, err := filepath.EvalSymlinks(app.opts.Workspace); err != nil || got != mustEval(t, ws) {
		t.Fatalf("messages name the workspace by its path: %q (%v)", app.opts.Workspace, err)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	got, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
