package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/tui/activity"
	"github.com/atelier-studio/atelier/tui/dialog"
	"github.com/atelier-studio/atelier/tui/files"
	"github.com/atelier-studio/atelier/tui/keys"
)

// filesPane focuses the file tree and selects the row showing name.
func filesPane(t *testing.T, h *harnessT, name string) {
	t.Helper()
	h.app.setFocus(focusFiles)
	cmd, ok := h.app.files.Select(name)
	if !ok {
		t.Fatalf("%s is not in the tree:\n%s", name, h.screen())
	}
	h.run(cmd)
}

// TestFileOperationsFromTheTree creates, renames, uploads, downloads and
// deletes through the file tree's keys and dialogs, on real files, as the
// operator; bad input changes nothing and says why.
func TestFileOperationsFromTheTree(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, "docs/guide.md", "main.go")
	h := newHarness(t, ws, 120, 40)
	host := t.TempDir()
	h.app.home = host

	// A new file in the selected folder opens in the editor.
	filesPane(t, h, "docs")
	h.press("a")
	if _, ok := h.app.dlg.dialog.(*dialog.Prompt); !ok || !strings.Contains(h.screen(), "A new empty file in docs/") {
		t.Fatalf("a asks the name:\n%s", h.screen())
	}
	h.typeText("notes/todo.md")
	h.press("enter")
	if _, err := os.Stat(filepath.Join(ws, "docs/notes/todo.md")); err != nil {
		t.Fatalf("the file and its folder: %v; status %q", err, h.app.status.text)
	}
	if et, ok := h.app.tabs.current().(*editorTab); !ok || et.Path() != "docs/notes/todo.md" {
		t.Fatalf("the new file opens in the editor")
	}
	if got := h.app.activity.Newest(1); !strings.Contains(got[0].Text, "created docs/notes/todo.md by you") {
		t.Fatalf("the activity stream says who: %+v", got)
	}

	// A name that leaves the workspace is refused; nothing is made.
	filesPane(t, h, "docs")
	h.press("A")
	h.typeText("../../escaped")
	h.press("enter")
	if !h.app.status.err || !strings.Contains(h.app.status.text, "outside the workspace") {
		t.Fatalf("an escaping name is an error: %q", h.app.status.text)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(ws), "escaped")); !os.IsNotExist(err) {
		t.Fatalf("nothing outside the workspace: %v", err)
	}

	// Rename main.go; an existing target is refused.
	filesPane(t, h, "main.go")
	h.press("m")
	h.send(keys.Press("ctrl+u")) // clear the pre-filled path
	h.typeText("cmd/app.go")
	h.press("enter")
	if _, err := os.Stat(filepath.Join(ws, "cmd/app.go")); err != nil {
		t.Fatalf("renamed: %v; status %q", err, h.app.status.text)
	}
	filesPane(t, h, "cmd")
	h.press("enter") // expand cmd/
	filesPane(t, h, "cmd/app.go")
	h.press("m")
	h.send(keys.Press("ctrl+u"))
	h.typeText("docs/guide.md")
	h.press("enter")
	if !h.app.status.err || !strings.Contains(h.app.status.text, "exists") {
		t.Fatalf("renaming onto a file is refused: %q", h.app.status.text)
	}

	// Upload a host folder into docs/, download a file out.
	writeFile(t, filepath.Join(host, "assets/img/logo.svg"), "<svg/>")
	filesPane(t, h, "docs")
	h.press("u")
	h.typeText("~/assets")
	h.press("enter")
	if b, err := os.ReadFile(filepath.Join(ws, "docs/assets/img/logo.svg")); err != nil || string(b) != "<svg/>" {
		t.Fatalf("uploaded: %q %v; status %q", b, err, h.app.status.text)
	}
	if !strings.Contains(h.app.status.text, "1 file") {
		t.Fatalf("the upload says what it copied: %q", h.app.status.text)
	}
	filesPane(t, h, "docs")
	h.press("enter") // expand docs/
	filesPane(t, h, "docs/guide.md")
	h.press("D")
	if !strings.Contains(h.screen(), filepath.Join(host, "guide.md")) {
		t.Fatalf("the download offers the home folder:\n%s", h.screen())
	}
	h.press("enter")
	if b, err := os.ReadFile(filepath.Join(host, "guide.md")); err != nil || string(b) != "x\n" {
		t.Fatalf("downloaded: %q %v; status %q", b, err, h.app.status.text)
	}
	h.press("D", "enter")
	if !h.app.status.err || !strings.Contains(h.app.status.text, "exists") {
		t.Fatalf("a download never replaces a host file: %q", h.app.status.text)
	}

	// Delete asks first; n keeps the folder, y removes it.
	filesPane(t, h, "docs")
	h.press("d")
	if !strings.Contains(h.screen(), "Delete the folder docs/ with everything in it?") {
		t.Fatalf("delete asks:\n%s", h.screen())
	}
	h.press("n")
	if _, err := os.Stat(filepath.Join(ws, "docs")); err != nil {
		t.Fatal("n keeps it")
	}
	h.press("d", "y")
	if _, err := os.Stat(filepath.Join(ws, "docs")); !os.IsNotExist(err) {
		t.Fatalf("y deletes it: %v; status %q", err, h.app.status.text)
	}
	if !strings.Contains(h.app.status.text, "you deleted docs") {
		t.Fatalf("status %q", h.app.status.text)
	}
}

// TestAFileOperationIsOneActivityEntry: the watcher's echoes of a file
// operation (the file made in a folder the tree had selected, both ends of
// a rename, what was under a deleted folder) are the operation's, logged
// once as it. Before, the studio remembered the selected row, not what the
// operation changed, and each echo was a second entry.
func TestAFileOperationIsOneActivityEntry(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, "docs/guide.md", "main.go")
	h := newHarness(t, ws, 120, 40)
	entries := func() int { return len(h.app.activity.Newest(activity.Limit)) }

	filesPane(t, h, "docs")
	h.press("a")
	h.typeText("todo.md")
	h.press("enter")
	before := entries()
	h.send(files.Changes{{Kind: afiles.Created, Path: "docs/todo.md", By: afiles.Operator}})
	filesPane(t, h, "main.go")
	h.press("m")
	h.send(keys.Press("ctrl+u"))
	h.typeText("cmd/app.go")
	h.press("enter")
	h.send(files.Changes{{Kind: afiles.Renamed, OldPath: "main.go", Path: "cmd/app.go", By: afiles.Operator}})
	h.send(files.Changes{{Kind: afiles.Deleted, Path: "main.go", By: afiles.Operator}, {Kind: afiles.Created, Path: "cmd/app.go", By: afiles.Operator}})
	if got := entries() - before; got != 1 {
		t.Fatalf("%d entries for a rename and its echoes, want 1:\n%+v", got, h.app.activity.Newest(4))
	}
	filesPane(t, h, "docs")
	h.press("d")
	h.press("enter")
	before = entries()
	h.send(files.Changes{{Kind: afiles.Deleted, Path: "docs/guide.md", By: afiles.Operator}, {Kind: afiles.Deleted, Path: "docs/todo.md", By: afiles.Operator}})
	if got := entries() - before; got != 0 {
		t.Fatalf("the deleted folder's files were logged again: %+v", h.app.activity.Newest(3))
	}
}
