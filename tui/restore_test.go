package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/golden"
	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/keys"
	"github.com/atelier-studio/atelier/tui/transcript"
)

// runDemo runs a demo session to its end on the engine (approvals allowed
// by policy, the question answered) and returns its id.
func runDemo(t *testing.T, h *harnessT, title string) string {
	t.Helper()
	rec, err := h.eng.Create(core.CreateOptions{Title: title, Instructions: "say hello", AutoStart: true, Approval: core.PolicyAuto})
	if err != nil {
		t.Fatal(err)
	}
	answered := false
	h.until(title+" to end", func() bool {
		for _, it := range h.app.live.asks {
			if it.SessionID == rec.ID && it.Kind == sess.Question && !answered {
				if err := h.eng.As("").Answer(rec.ID, it.ID, core.Answer{Text: "hello", By: "operator"}); err != nil {
					t.Fatal(err)
				}
				answered = true
			}
		}
		return h.app.live.recs[rec.ID].Status == sess.Ended
	})
	if r := h.app.live.recs[rec.ID]; r.EndReason != sess.Completed {
		t.Fatalf("the demo ended %s: %s", r.EndReason, r.Error)
	}
	return rec.ID
}

// TestRestoreToBeforeATurnAndUndoIt runs a real demo session that writes
// its file, then from its tab's turn history: opens the file's diff,
// restores to before the turn (previewed, the operator's later edit
// flagged, confirmed: the file is gone), and undoes that restore from the
// same list (the operator's edit is back).
func TestRestoreToBeforeATurnAndUndoIt(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, "README.md")
	h := newHarness(t, ws, 140, 45)
	id := runDemo(t, h, "greet")
	demo := filepath.Join(ws, harness.DemoFile)
	if _, err := os.Stat(demo); err != nil {
		t.Fatalf("the demo should have written its file: %v", err)
	}

	h.send(keys.Press("enter")) // the sessions pane has focus: open the tab
	if h.app.tabs.visibleSession() != id {
		t.Fatal("the session's tab should open")
	}
	h.press("h")
	h.until("turn 1 in the history", func() bool {
		s := h.screen()
		return strings.Contains(s, "◆ turn 1") && strings.Contains(s, "A "+harness.DemoFile)
	})

	// The file's diff opens in a tab.
	h.press("j", "enter")
	if _, ok := h.app.tabs.current().(*diffTab); !ok {
		t.Fatalf("enter on a file opens its diff; status %q", h.app.status.text)
	}
	if !strings.Contains(h.screen(), "+The task was: say hello") {
		t.Fatalf("the turn's diff of the file:\n%s", h.screen())
	}
	h.press("ctrl+w")
	if h.app.tabs.visibleSession() != id {
		t.Fatal("closing the diff shows the session again")
	}

	// The operator edits the file after the turn.
	if err := h.app.ownWS.WriteFile(afiles.Operator, harness.DemoFile, []byte("mine\n")); err != nil {
		t.Fatal(err)
	}

	h.press("k", "b")
	if _, ok := h.app.dlg.dialog.(*dialog.Choice); !ok {
		t.Fatalf("b previews the restore first; status %q\n%s", h.app.status.text, h.screen())
	}
	s := h.screen()
	for _, want := range []string{"Restore before turn 1", "delete " + harness.DemoFile, "⚠ changed since by you", "1 file changes"} {
		if !strings.Contains(s, want) {
			t.Errorf("the preview lacks %q:\n%s", want, s)
		}
	}
	h.press("n")
	if _, err := os.Stat(demo); err != nil || h.app.dlg.dialog != nil {
		t.Fatalf("n keeps things as they are: %v", err)
	}

	h.press("b")
	h.press("y")
	if _, err := os.Stat(demo); !os.IsNotExist(err) {
		t.Fatalf("restored to before the turn, the demo's file should be gone: %v; status %q", err, h.app.status.text)
	}
	if !strings.Contains(h.app.status.text, "you restored before turn 1") || h.app.status.err {
		t.Fatalf("the status line says so: %q", h.app.status.text)
	}
	if got := h.app.activity.Newest(1); len(got) != 1 || !strings.Contains(got[0].Text, "greet: you restored before turn 1") || got[0].SessionID != id {
		t.Fatalf("the activity stream says so: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "README.md")); err != nil {
		t.Fatalf("a file the turn did not touch stays: %v", err)
	}

	// The restore is in the session's history, on top; b on it undoes it.
	h.until("the restore in the history", func() bool { return strings.Contains(h.screen(), "↺ restore") })
	for range 5 {
		h.press("k")
	}
	if cm, _, _ := h.app.tabs.list[h.app.tabs.sessionIndex(id)].(*sessionTab).History().Selected(); cm.Kind != history.KindRestore {
		t.Fatalf("the top row should be the restore: %+v", cm)
	}
	h.press("b")
	if !strings.Contains(h.screen(), "create "+harness.DemoFile) {
		t.Fatalf("undoing the restore creates the file again:\n%s", h.screen())
	}
	h.press("y")
	b, err := os.ReadFile(demo)
	if err != nil || string(b) != "mine\n" {
		t.Fatalf("the undo should bring back the operator's version: %q %v; status %q", b, err, h.app.status.text)
	}
}

// TestRestorePreviewWordsEveryCase shows a preview with a file changed
// since by another session, a blocked one, and nothing to do.
func TestRestorePreviewWordsEveryCase(t *testing.T) {
	h := goldenWorkspace(t)
	var self, other string
	for id, r := range h.app.live.recs {
		if r.Title == "write the docs" {
			other = id
		} else {
			self = id
		}
	}
	req := transcript.Restore{ID: self, Commit: "0123456789", Label: "after turn 2"}
	h.app.hist.showRestorePreview(previewMsg{req: req, preview: history.RestorePreview{
		Target: history.Commit{Hash: "0123456789abcdef"},
		Files: []history.RestoreFile{
			{Path: "core/engine.go", Action: history.ActionModify, ChangedBy: []string{self, other}},
			{Path: "new.go", Action: history.ActionCreate},
			{Path: ".env", Action: history.ActionModify, Blocked: "its current content is not in the history (a secret)"},
		},
	}})
	s := h.screen()
	checkSize(t, s, 120, 40)
	golden.Check(t, "restore-preview-120x40.txt", s)
	for _, want := range []string{"Restore after turn 2", "commit 0123456", "2 files change", "modify core/engine.go",
		"⚠ changed since by “write the docs”", "create new.go", "⊘ .env — left alone", "1 file is left alone"} {
		if !strings.Contains(s, want) {
			t.Errorf("the preview lacks %q:\n%s", want, s)
		}
	}
	h.press("esc")
	if h.app.dlg.dialog != nil {
		t.Fatal("esc keeps things as they are")
	}

	h.app.hist.showRestorePreview(previewMsg{req: req, preview: history.RestorePreview{Target: history.Commit{Hash: "0123456789"}}})
	if h.app.dlg.dialog != nil || !strings.Contains(h.app.status.text, "nothing to restore after turn 2") {
		t.Fatalf("nothing to change: the status line says so (%q)", h.app.status.text)
	}
	if cmd := h.app.hist.previewRestore(transcript.Restore{ID: other, Label: "before turn 1"}); cmd != nil || !h.app.status.err {
		t.Fatalf("a restore to before the first commit is refused at once: %q", h.app.status.text)
	}
}
