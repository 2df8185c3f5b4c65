package files

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			must(t, os.MkdirAll(full, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte(c), 0o644))
	}
}

func rowNames(rows []Row) string {
	var s []string
	for _, r := range rows {
		x := strings.Repeat("  ", r.Depth) + r.Name
		if r.IsDir {
			x += fmt.Sprintf("/(%d)", r.Count)
		}
		switch r.Mark.Kind {
		case MarkNew:
			x += " +" + r.Mark.By
		case MarkChanged:
			x += " ~" + r.Mark.By
		case MarkDeleted:
			x += " -" + r.Mark.By
		}
		if r.ChangedBelow {
			x += " *"
		}
		s = append(s, x)
	}
	return strings.Join(s, "\n")
}

func TestTreeLoadSortHide(t *testing.T) {
	ws, root := newWorkspace(t)
	writeTree(t, root, map[string]string{
		".gitignore": "*.log\nbuild/\n", "b.go": "b", "A.md": "a", "z/": "", "src/x.go": "x", "src/y.log": "y",
		"build/o": "o", ".git/HEAD": "h", "node_modules/m/i.js": "i", ".state/s": "s", "app.log": "l",
	})
	tr := NewTree(ws, nil)
	must(t, tr.Load(""))
	want := "src/(1)\nz/(0)\n.gitignore\nA.md\nb.go"
	if got := rowNames(tr.Rows(0, 100)); got != want {
		t.Fatalf("rows:\n%s\nwant:\n%s", got, want)
	}
	must(t, tr.Expand("src"))
	if got := rowNames(tr.Rows(0, 3)); got != "src/(1)\n  x.go\nz/(0)" {
		t.Fatalf("expanded:\n%s", got)
	}
	tr.SetShowHidden(true)
	got := rowNames(tr.Rows(0, 100))
	for _, name := range []string{".git/", "node_modules/", ".state/", "build/", "app.log", "y.log", "src/(2)"} {
		if !strings.Contains(got, name) {
			t.Fatalf("hidden %s not shown:\n%s", name, got)
		}
	}
	for _, r := range tr.Rows(0, 100) {
		if (r.Name == ".git" || r.Name == "app.log") && !r.Hidden {
			t.Fatalf("%s not flagged hidden", r.Name)
		}
	}
	tr.SetShowHidden(false)
	tr.Collapse("src")
	if tr.Len() != 5 {
		t.Fatalf("len after collapse = %d", tr.Len())
	}
	if i := tr.Index("b.go"); i != 4 {
		t.Fatalf("Index(b.go) = %d", i)
	}
}

func TestTreeApplyAndMarks(t *testing.T) {
	ws, root := newWorkspace(t)
	writeTree(t, root, map[string]string{"src/a.go": "a", "src/b.go": "b", "lazy/deep/x": "x", "old.txt": "o"})
	tr := NewTree(ws, nil)
	must(t, tr.Load(""))
	must(t, tr.Expand("src"))
	now := time.Now()
	tr.Apply([]Change{
		{Kind: Created, Path: "src/c.go", By: "s1", Size: 3, Time: now},
		{Kind: Changed, Path: "src/a.go", By: "s2", Size: 9, Time: now},
		{Kind: Deleted, Path: "src/b.go", By: External, Time: now},
		{Kind: Changed, Path: "lazy/deep/x", By: Operator, Time: now},
		{Kind: Renamed, Path: "new.txt", OldPath: "old.txt", By: "s1", Time: now},
		{Kind: Notice, Message: "hello", Time: now},
	})
	want := "lazy/(1) *\nsrc/(3) *\n  a.go ~s2\n  b.go -external\n  c.go +s1\nnew.txt +s1"
	if got := rowNames(tr.Rows(0, 100)); got != want {
		t.Fatalf("rows:\n%s\nwant:\n%s", got, want)
	}
	// A mark inside a folder not loaded yet shows once it is.
	must(t, tr.Expand("lazy"))
	must(t, tr.Expand("lazy/deep"))
	if r := tr.Rows(tr.Index("lazy/deep/x"), 1)[0]; r.Mark.Kind != MarkChanged || r.Mark.By != Operator {
		t.Fatalf("lazy mark = %+v", r.Mark)
	}
	// Created then deleted in one turn: gone without a ghost.
	tr.Apply([]Change{{Kind: Deleted, Path: "src/c.go", By: "s1"}})
	if tr.Index("src/c.go") != -1 {
		t.Fatal("a file created and deleted in one turn left a ghost")
	}
	tr.MarkChanged("src/a.go", "s3")
	if r := tr.Rows(tr.Index("src/a.go"), 1)[0]; r.Mark.By != "s3" {
		t.Fatalf("MarkChanged: %+v", r.Mark)
	}
	tr.ClearMarks()
	got := rowNames(tr.Rows(0, 100))
	if strings.ContainsAny(got, "*+~-") || strings.Contains(got, "b.go") {
		t.Fatalf("after ClearMarks:\n%s", got)
	}
}

// TestTreeFollowsWatcher wires a watcher into a tree, as the studio does.
func TestTreeFollowsWatcher(t *testing.T) {
	ws, root := newWorkspace(t)
	writeTree(t, root, map[string]string{"src/a.go": "a"})
	ig := NewIgnore()
	tr := NewTree(ws, ig)
	must(t, tr.Load(""))
	must(t, tr.Expand("src"))
	c := watch(t, ws, WatcherOptions{Ignore: ig})
	must(t, ws.WriteFile("s1", "src/b.go", []byte("bb")))
	c.until("the write", has(Created, "src/b.go"))
	tr.Apply(c.all)
	tr.ProbeBinary(0, 10)
	r := tr.Rows(tr.Index("src/b.go"), 1)[0]
	if r.Mark.Kind != MarkNew || r.Mark.By != "s1" || r.Size != 2 || r.Binary != BinaryNo {
		t.Fatalf("row = %+v", r)
	}
}

// makeBigTree writes 100 folders of 1000 empty files (100k) plus a few
// files at the top.
func makeBigTree(b testing.TB, root string) {
	for d := 0; d < 100; d++ {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		must(b, os.Mkdir(dir, 0o755))
		for f := 0; f < 1000; f++ {
			fh, err := os.Create(filepath.Join(dir, fmt.Sprintf("file%04d.go", f)))
			must(b, err)
			must(b, fh.Close())
		}
	}
	for f := 0; f < 20; f++ {
		must(b, os.WriteFile(filepath.Join(root, fmt.Sprintf("top%02d.md", f)), []byte("x"), 0o644))
	}
}

// BenchmarkTreeLoad100k loads the first level of a 100k-file tree, counts
// included (each of the 100 folders is listed to count its 1000 files).
func BenchmarkTreeLoad100k(b *testing.B) {
	root := b.TempDir()
	makeBigTree(b, root)
	ws, err := Open(root, nil)
	must(b, err)
	defer closeOK(b, ws)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr := NewTree(ws, nil)
		must(b, tr.Load(""))
		if rows := tr.Rows(0, 50); len(rows) != 50 || rows[0].Count != 1000 {
			b.Fatalf("rows = %d, count = %d", len(rows), rows[0].Count)
		}
	}
}

// BenchmarkTreeMemory100k measures the heap held by a fully loaded and
// expanded 100k-file tree.
func BenchmarkTreeMemory100k(b *testing.B) {
	root := b.TempDir()
	makeBigTree(b, root)
	ws, err := Open(root, nil)
	must(b, err)
	defer closeOK(b, ws)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		tr := NewTree(ws, nil)
		must(b, tr.Load(""))
		for d := 0; d < 100; d++ {
			must(b, tr.Expand(fmt.Sprintf("pkg%03d", d)))
		}
		if n := tr.Len(); n != 100120 {
			b.Fatalf("rows = %d", n)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB/tree")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/100120, "B/entry")
		runtime.KeepAlive(tr)
	}
}

// A file deleted inside a folder not opened yet shows as deleted once the
// folder is opened; a file deleted and written again in one turn is
// changed, not new.
func TestTreeMarksAcrossCollapsedFoldersAndRewrites(t *testing.T) {
	ws, root := newWorkspace(t)
	writeTree(t, root, map[string]string{"lazy/gone.go": "g", "lazy/kept.go": "k", "top.go": "t"})
	tr := NewTree(ws, nil)
	must(t, tr.Load(""))
	must(t, os.Remove(filepath.Join(root, "lazy", "gone.go")))
	tr.Apply([]Change{{Kind: Deleted, Path: "lazy/gone.go", By: "s1"}})
	must(t, tr.Expand("lazy"))
	if i := tr.Index("lazy/gone.go"); i < 0 {
		t.Fatalf("no ghost for a file deleted in a collapsed folder:\n%s", rowNames(tr.Rows(0, 100)))
	} else if r := tr.Rows(i, 1)[0]; r.Mark.Kind != MarkDeleted || r.Mark.By != "s1" {
		t.Fatalf("the ghost's mark: %+v", r.Mark)
	}
	tr.Apply([]Change{{Kind: Deleted, Path: "top.go", By: "s2"}, {Kind: Created, Path: "top.go", By: "s2", Size: 5}})
	if r := tr.Rows(tr.Index("top.go"), 1)[0]; r.Mark.Kind != MarkChanged {
		t.Fatalf("deleted then written again: %+v, want changed", r.Mark)
	}
}
