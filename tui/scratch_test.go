package tui

import (
	"testing"

	afiles "github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/tui/files"
)

func TestEditorScratch(t *testing.T) {
	for p, want := range map[string]bool{
		".main.go.swp": true, "pkg/.main.go.swo": true, ".x.swx": true, "4913": true, "dir/4913": true,
		"main.go~": true, "#notes.md#": true, ".#notes.md": true,
		"main.go": false, "swap.swp": false, "notes.md": false, "#": false, "a#b": false, "4914": false, ".gitignore": false,
	} {
		if got := editorScratch(p); got != want {
			t.Errorf("editorScratch(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestActivityLeavesOutEditorScratch: a save in vim, as the watcher sees
// it (its write probe, its swap file, its backup, then the file), is one
// entry in the activity stream, not four.
func TestActivityLeavesOutEditorScratch(t *testing.T) {
	h := newHarness(t, t.TempDir(), 120, 40)
	h.send(files.Changes{
		{Kind: afiles.Created, Path: "4913", By: afiles.External},
		{Kind: afiles.Changed, Path: ".main.go.swp", By: afiles.External},
		{Kind: afiles.Created, Path: "main.go~", By: afiles.External},
		{Kind: afiles.Changed, Path: "main.go", By: afiles.External},
	})
	if !h.logged("main.go changed") {
		t.Fatalf("the file's own change is not logged")
	}
	for _, p := range []string{"4913", ".main.go.swp", "main.go~"} {
		if h.logged(p + " ") {
			t.Errorf("%s logged as a change of the work", p)
		}
	}
}
