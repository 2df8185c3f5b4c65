package files

import "testing"

// TestTreeSetMarks: the host's set replaces the tree's own marks; a path
// it marks deleted shows as a ghost, goes when the set no longer marks it,
// and a file on disk again is never taken for a ghost.
func TestTreeSetMarks(t *testing.T) {
	ws, root := newWorkspace(t)
	writeTree(t, root, map[string]string{"src/a.go": "a", "src/b.go": "b", "top.go": "t"})
	tr := NewTree(ws, nil)
	must(t, tr.Load(""))
	must(t, tr.Expand("src"))
	tr.Apply([]Change{{Kind: Changed, Path: "top.go", By: Operator}}) // the tree's own guess
	tr.SetMarks(map[string]Mark{
		"src/a.go":    {Kind: MarkChanged, By: "s1"},
		"src/gone.go": {Kind: MarkDeleted, By: "s2"},
	})
	want := "src/(3) *\n  a.go ~s1\n  b.go\n  gone.go -s2\ntop.go"
	if got := rowNames(tr.Rows(0, tr.Len())); got != want {
		t.Fatalf("with the host's marks:\n%s\nwant\n%s", got, want)
	}
	// The tree's own watcher sees b.go go and come back; the host marks it
	// deleted in between, then changed.
	tr.Apply([]Change{{Kind: Deleted, Path: "src/b.go", By: "s2"}})
	tr.SetMarks(map[string]Mark{"src/b.go": {Kind: MarkDeleted, By: "s2"}})
	tr.Apply([]Change{{Kind: Created, Path: "src/b.go", By: "s2", Size: 1}})
	tr.SetMarks(map[string]Mark{"src/b.go": {Kind: MarkChanged, By: "s2"}})
	want = "src/(2) *\n  a.go\n  b.go ~s2\ntop.go"
	if got := rowNames(tr.Rows(0, tr.Len())); got != want {
		t.Fatalf("after the set moved on:\n%s\nwant\n%s", got, want)
	}
	tr.SetMarks(nil)
	want = "src/(2)\n  a.go\n  b.go\ntop.go"
	if got := rowNames(tr.Rows(0, tr.Len())); got != want {
		t.Fatalf("with no marks:\n%s\nwant\n%s", got, want)
	}
}
