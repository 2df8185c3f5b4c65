package instances

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// agentWork changes an instance as an agent would: one line changed, a
// file added, one removed, a binary file added and a mode changed.
func agentWork(t *testing.T, path string) {
	t.Helper()
	write(t, path, map[string]string{"a.txt": "1\n2 changed\n3\n", "added.txt": "x\ny\n"})
	if err := os.Remove(filepath.Join(path, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "blob.bin"), []byte{0, 1, 2, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(path, "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
}

var kinds = []Kind{Worktree, Copy}

func diffRepo(t *testing.T) string {
	return newRepo(t, map[string]string{"a.txt": "1\n2\n3\n", "gone.txt": "g\n", "tool.sh": "#!/bin/sh\n"})
}

func TestDiff(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			ws := diffRepo(t)
			m := open(t, ws, Options{})
			in, err := m.Create(kind, "i")
			if err != nil {
				t.Fatal(err)
			}
			agentWork(t, in.Path)
			d, err := m.Diff("i")
			if err != nil {
				t.Fatal(err)
			}
			type row struct {
				status           Status
				added, removed   int
				binary           bool
				oldMode, newMode uint32
			}
			want := map[string]row{
				"a.txt":     {Changed, 1, 1, false, modeFile, modeFile},
				"added.txt": {Added, 2, 0, false, 0, modeFile},
				"gone.txt":  {Removed, 0, 1, false, modeFile, 0},
				"blob.bin":  {Added, 0, 0, true, 0, modeFile},
				"tool.sh":   {Changed, 0, 0, false, modeFile, modeExec},
			}
			if len(d.Files) != len(want) {
				t.Fatalf("files %+v", d.Files)
			}
			for _, f := range d.Files {
				w, ok := want[f.Path]
				got := row{f.Status, f.Added, f.Removed, f.Binary, f.OldMode, f.NewMode}
				if !ok || got != w {
					t.Errorf("%s: %+v, want %+v", f.Path, got, w)
				}
			}
			for _, s := range []string{"diff --git a/a.txt b/a.txt", "-2\n+2 changed\n", "+++ b/added.txt", "Binary files", "deleted file mode 100644", "-g\n"} {
				if !strings.Contains(d.Patch, s) {
					t.Errorf("the patch lacks %q:\n%s", s, d.Patch)
				}
			}
			if a, r := d.Lines(); a != 3 || r != 2 {
				t.Errorf("lines +%d -%d", a, r)
			}
		})
	}
}

// A worktree's diff counts what the agent committed as well as what it
// did not, and leaves the agent's index as it was.
func TestDiffWorktreeCountsCommits(t *testing.T) {
	ws := diffRepo(t)
	m := open(t, ws, Options{})
	in, err := m.Create(Worktree, "i")
	if err != nil {
		t.Fatal(err)
	}
	write(t, in.Path, map[string]string{"a.txt": "1\n2 committed\n3\n"})
	run(t, in.Path, "commit", "-qam", "agent")
	write(t, in.Path, map[string]string{"new.txt": "n\n"})
	idx := filepath.Join(run(t, ws, "rev-parse", "--absolute-git-dir"), "worktrees", "i", "index")
	before := read(t, idx)
	d, err := m.Diff("i")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 2 || d.Files[0].Path != "a.txt" || d.Files[1].Path != "new.txt" {
		t.Fatalf("files %+v", d.Files)
	}
	if read(t, idx) != before {
		t.Error("the diff changed the instance's index")
	}
}

// A copy's file whose base content is gone (the workspace changed it and
// git does not hold it) is still reported, marked NoBase.
func TestDiffCopyWithoutBase(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a\n"})
	m := open(t, ws, Options{})
	in, err := m.Create(Copy, "c")
	if err != nil {
		t.Fatal(err)
	}
	write(t, in.Path, map[string]string{"a.txt": "a\nmore\n"})
	write(t, ws, map[string]string{"a.txt": "operator\n"})
	d, err := m.Diff("c")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 1 || !d.Files[0].NoBase || d.Files[0].Added != 2 {
		t.Fatalf("files %+v", d.Files)
	}
}

// A file the agent rewrites, at its size, in the second its checkout was
// made is "racily clean" to git: only the index file's own time tells
// git to look at its content. A diff a second later must still see it,
// so the diff's scratch index may not look newer than the index it was
// made from.
func TestDiffSeesASameSizeRewriteInTheCheckoutsSecond(t *testing.T) {
	ws := newRepo(t, map[string]string{"a.txt": "one\nthree\n"})
	m := open(t, ws, Options{})
	for try := 0; ; try++ {
		// Start just past a second's boundary so that the checkout and
		// the rewrite share their second; say so if the machine was slow.
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))
		start := time.Now()
		name := fmt.Sprintf("i%d", try)
		in, err := m.Create(Worktree, name)
		if err != nil {
			t.Fatal(err)
		}
		write(t, in.Path, map[string]string{"a.txt": "one\nTHREE\n"})
		if time.Now().Unix() != start.Unix() {
			if try == 2 {
				t.Fatal("three tries could not make a checkout and a rewrite within one second")
			}
			continue
		}
		time.Sleep(time.Until(start.Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
		for round := 0; round < 2; round++ { // the first diff, then one from its cached index
			d, err := m.Diff(name)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Files) != 1 || d.Files[0].Path != "a.txt" || d.Files[0].Added != 1 {
				t.Fatalf("diff %d of a same-size rewrite: %+v", round+1, d.Files)
			}
			time.Sleep(1100 * time.Millisecond)
		}
		return
	}
}

// A copy's file rewritten at its size in the clock tick it was copied in
// keeps its recorded size and time; the manifest written in that tick too
// says the time proves nothing, and the diff reads the file.
func TestDiffCopySeesARewriteInTheTickOfTheCopy(t *testing.T) {
	ws := newRepo(t, map[string]string{"a.txt": "one\nthree\n"})
	m := open(t, ws, Options{})
	in, err := m.Create(Copy, "i")
	if err != nil {
		t.Fatal(err)
	}
	man, err := readManifest(m.manifestPath("i"))
	if err != nil {
		t.Fatal(err)
	}
	tick := time.Unix(0, man["a.txt"].MTime)
	p := filepath.Join(in.Path, "a.txt")
	write(t, in.Path, map[string]string{"a.txt": "one\nTHREE\n"})
	for _, f := range []string{p, m.manifestPath("i")} {
		if err := os.Chtimes(f, tick, tick); err != nil {
			t.Fatal(err)
		}
	}
	d, err := m.Diff("i")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 1 || d.Files[0].Path != "a.txt" {
		t.Fatalf("a same-size rewrite in the copy's tick: %+v", d.Files)
	}
}
