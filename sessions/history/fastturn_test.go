package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fastOptions are the options of the fast-path tests: a small size limit
// so a file can grow over it.
var fastOptions = Options{MaxFileSize: 64}

// fastBase writes the workspace every fast-path case starts from.
func fastBase(t *testing.T, ws string) {
	t.Helper()
	for rel, body := range map[string]string{
		"a.go":           "package a\n",
		"b.go":           "package b\n",
		"keep.go":        "unchanged\n",
		"old/name.go":    "renamed soon\n",
		"run.sh":         "#!/bin/sh\necho run\n",
		"grow.txt":       "small\n",
		"olddir/x.go":    "x\n",
		"olddir/y.go":    "y\n",
		"gone/deep/z.go": "z\n",
		".gitignore":     "build/\n*.log\n",
		"deep/a/b/c.go":  "c\n",
		"was-file":       "becomes a pipe\n",
	} {
		write(t, ws, rel, body)
	}
	if err := os.Symlink("a.go", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
}

// fastChanges makes one turn's worth of edits covering the cases a fast
// commit must record as staging does, and returns the paths it changed.
func fastChanges(t *testing.T, ws string) []string {
	t.Helper()
	write(t, ws, "a.go", "package a // edited\n")
	write(t, ws, "new/folder/n.go", "new in a new folder\n")
	sh(t, ws, `
rm b.go
mv old/name.go new/name.go
chmod +x grow.txt
printf '%080d' 0 > grow.txt
rm -r olddir && echo now-a-file > olddir
rm -r gone
ln -sfn b.go link
ln -s run.sh newlink
chmod -x run.sh
mkdir -p build && echo obj > build/out.o
echo log > debug.log
echo SECRET=1 > .env
echo c2 > deep/a/b/c.go
mkfifo pipe
rm was-file && mkfifo was-file
printf '%0100d' 0 > build/big.bin
printf '%0100d' 0 > big.new
ln -s deep dirlink
`)
	return []string{
		"a.go", "b.go", "new/folder/n.go", "old/name.go", "new/name.go", "grow.txt",
		"olddir", "gone/deep/z.go", "link", "newlink", "run.sh", "build/out.o", "debug.log",
		".env", "deep/a/b/c.go", "pipe", "never/existed.go", "was-file", "build/big.bin",
		"big.new", "dirlink",
	}
}

// treeOf returns the tree object of the branch's tip: equal trees have
// equal names, modes and contents everywhere.
func treeOf(t *testing.T, h *History) string {
	t.Helper()
	out, err := h.git.run(context.Background(), call{}, "rev-parse", h.ref+"^{tree}")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// lsTree lists the tip's tree, for a readable failure.
func lsTree(t *testing.T, h *History) string {
	t.Helper()
	out, err := h.git.run(context.Background(), call{}, "ls-tree", "-r", h.ref)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// lsIndex lists the index as ls-tree would list a tree.
func lsIndex(t *testing.T, h *History) string {
	t.Helper()
	out, err := h.git.run(context.Background(), call{}, "ls-files", "-s")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// "mode hash stage\tpath" -> "mode blob hash\tpath"
		meta, path, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		fmt.Fprintf(&b, "%s blob %s\t%s\n", f[0], f[1], path)
	}
	return b.String()
}

// withLogs commits a turn with a session log, the way the engine does.
func withLogs(t *testing.T, h *History, ws string, n int, changed []string) Commit {
	t.Helper()
	log := ".state/sessions/s/messages.jsonl"
	write(t, ws, log, fmt.Sprintf("{\"turn\":%d}\n", n))
	c, err := h.CommitTurn(context.Background(), TurnCommit{SessionID: "s", Turn: n, Summary: "edits", Changed: changed, Logs: []string{log}})
	if err != nil {
		t.Fatalf("CommitTurn %d: %v", n, err)
	}
	return c
}

// TestFastTurnTreeMatchesStaging makes the same turn in three workspaces:
// committed by the fast path, by staging the same known paths through the
// index, and by a full scan. The three trees and skipped lists must be
// the same, and the fast path must leave an index that a later scan finds
// in step with the commit.
func TestFastTurnTreeMatchesStaging(t *testing.T) {
	var hs [3]*History
	var wss [3]string
	var commits [3]Commit
	for i := range hs {
		wss[i] = workspace(t)
		fastBase(t, wss[i])
		hs[i] = open(t, wss[i], fastOptions)
		withLogs(t, hs[i], wss[i], 1, []string{}) // vouches for the index
		changed := fastChanges(t, wss[i])
		before := hs[i].git.spawns.Load()
		switch i {
		case 0:
			commits[i] = withLogs(t, hs[i], wss[i], 2, changed)
			if n := hs[i].git.spawns.Load() - before; n > 3 {
				t.Errorf("fast turn started %d git processes, want at most 3", n)
			}
		case 1:
			if err := hs[i].forgetIndexState(); err != nil {
				t.Fatal(err)
			}
			commits[i] = withLogs(t, hs[i], wss[i], 2, changed)
			if n := hs[i].git.spawns.Load() - before; n <= 3 {
				t.Errorf("staging path started only %d git processes: did it stage?", n)
			}
		case 2:
			commits[i] = withLogs(t, hs[i], wss[i], 2, nil)
		}
	}
	for i, name := range []string{"staging the known paths", "a full scan"} {
		if a, b := treeOf(t, hs[0]), treeOf(t, hs[i+1]); a != b {
			t.Errorf("fast tree differs from %s:\nfast:\n%s\n%s:\n%s", name, lsTree(t, hs[0]), name, lsTree(t, hs[i+1]))
		}
		if !reflect.DeepEqual(commits[0].Skipped, commits[i+1].Skipped) {
			t.Errorf("fast skipped %v, %s skipped %v", commits[0].Skipped, name, commits[i+1].Skipped)
		}
	}
	var skipped []string
	for _, f := range commits[0].Skipped {
		skipped = append(skipped, f.Path)
	}
	if want := []string{"big.new", "grow.txt", "was-file"}; !reflect.DeepEqual(skipped, want) {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
	if got := tree(t, hs[0], hs[0].ref); !contain(got, "olddir") || contain(got, "olddir/x.go") || !contain(got, "new/folder/n.go") || contain(got, "build/out.o") || contain(got, ".env") {
		t.Errorf("fast tree %v: want the folder turned file, the new folder, and no ignored or secret file", got)
	}
	// The index was left behind; any locked operation brings it up.
	div, err := hs[0].Divergence(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(div) != 0 {
		t.Errorf("divergence after a fast turn = %v, want none", div)
	}
	if got, want := lsIndex(t, hs[0]), lsTree(t, hs[0]); got != want {
		t.Errorf("index after sync:\n%s\nwant the tip's tree:\n%s", got, want)
	}
	c, err := hs[0].Snapshot(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Hash != commits[0].Hash {
		t.Errorf("a full scan after the fast turn made commit %s, want none (tip %s)", c.Hash, commits[0].Hash)
	}
}

// TestFastTurnsInARowThenStaging runs several fast turns (the index left
// further behind each time), then an operator commit and a staged turn,
// which must build on the last fast commit, not on the stale index.
func TestFastTurnsInARowThenStaging(t *testing.T) {
	ws := workspace(t)
	fastBase(t, ws)
	h := open(t, ws, fastOptions)
	withLogs(t, h, ws, 1, []string{})
	for n := 2; n <= 4; n++ {
		write(t, ws, fmt.Sprintf("f%d.go", n), "turn\n")
		write(t, ws, "a.go", fmt.Sprintf("a at turn %d\n", n))
		withLogs(t, h, ws, n, []string{fmt.Sprintf("f%d.go", n), "a.go"})
	}
	write(t, ws, "op.txt", "by hand\n")
	if _, made, err := h.OperatorCommit(context.Background(), nil); err != nil || !made {
		t.Fatalf("operator commit: made %v, %v", made, err)
	}
	write(t, ws, "keep.go", "staged\n")
	// A folder in the list takes the staging path.
	withLogs(t, h, ws, 5, []string{"keep.go", "deep"})
	files := tree(t, h, h.ref)
	for _, want := range []string{"f2.go", "f3.go", "f4.go", "op.txt", "keep.go"} {
		if !contain(files, want) {
			t.Errorf("tree %v lacks %s", files, want)
		}
	}
	if got, _ := h.git.run(context.Background(), call{}, "show", h.ref+":a.go"); string(got) != "a at turn 4\n" {
		t.Errorf("a.go = %q, want the last fast turn's", got)
	}
	if c, err := h.Snapshot(context.Background(), ""); err != nil || c.Kind == KindSnapshot {
		t.Errorf("a full scan found changes the commits missed: %+v, %v", c, err)
	}
}

// TestFastTurnFallsBack checks the cases where the fast path must not be
// trusted: an unknown list scans everything, a history whose index state
// is not vouched for (a first open, a branch moved by another process)
// stages through the index, and both record what the list left out only
// when scanning.
func TestFastTurnFallsBack(t *testing.T) {
	ws := workspace(t)
	fastBase(t, ws)
	h := open(t, ws, fastOptions)
	// A history kept before the state file existed vouches for nothing.
	if err := h.forgetIndexState(); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "a.go", "listed\n")
	write(t, ws, "b.go", "not listed\n")
	before := h.git.spawns.Load()
	withLogs(t, h, ws, 1, []string{"a.go"})
	if n := h.git.spawns.Load() - before; n <= 3 {
		t.Errorf("an unvouched index took %d git processes: the fast path ran", n)
	}
	if got, _ := h.git.run(context.Background(), call{}, "show", h.ref+":b.go"); string(got) != "package b\n" {
		t.Errorf("b.go = %q: a known list recorded a path it did not name", got)
	}
	// Another process (another History on the workspace) moves the branch.
	other := open(t, ws, fastOptions)
	write(t, ws, "c.go", "other\n")
	withLogs(t, other, ws, 2, []string{"c.go"})
	write(t, ws, "d.go", "mine\n")
	withLogs(t, h, ws, 3, []string{"d.go"})
	if files := tree(t, h, h.ref); !contain(files, "c.go") || !contain(files, "d.go") {
		t.Errorf("tree %v: want both processes' files", files)
	}
	// No list: the whole workspace is scanned.
	withLogs(t, h, ws, 4, nil)
	if got, _ := h.git.run(context.Background(), call{}, "show", h.ref+":b.go"); string(got) != "not listed\n" {
		t.Errorf("b.go = %q after a full scan, want the unlisted edit", got)
	}
	// A state whose head is not the branch's (fast commits since, or a
	// crash before the state was written): the index is caught up from
	// its base whatever the branch went through.
	write(t, ws, "e.go", "e\n")
	withLogs(t, h, ws, 5, []string{"e.go"})
	st, err := h.readIndexState()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.writeIndexState(indexState{base: st.base, head: strings.Repeat("1", 40)}); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "f.go", "f\n")
	withLogs(t, h, ws, 6, []string{"f.go"})
	if files := tree(t, h, h.ref); !contain(files, "e.go") || !contain(files, "f.go") {
		t.Errorf("tree %v: want e.go and f.go", files)
	}
}

// TestSyncIndexReplacesFileWithFolder syncs an index across a commit that
// turned a file into a folder: the removal must come before the addition.
func TestSyncIndexReplacesFileWithFolder(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "x", "file\n")
	h := open(t, ws, Options{})
	withLogs(t, h, ws, 1, []string{})
	base := treeHead(t, h)
	sh(t, ws, "rm x && mkdir x && echo in > x/y")
	withLogs(t, h, ws, 2, nil) // staged through the index
	head := treeHead(t, h)
	// Put the index back at base and let the sync bring it to head.
	if _, err := h.git.run(context.Background(), call{locked: true}, "read-tree", base); err != nil {
		t.Fatal(err)
	}
	if err := h.writeIndexState(indexState{base: base, head: head}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Divergence(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := lsIndex(t, h), lsTree(t, h); got != want {
		t.Errorf("index after sync:\n%s\nwant:\n%s", got, want)
	}
	// A state naming commits git does not have: the index is read afresh.
	if _, err := h.git.run(context.Background(), call{locked: true}, "read-tree", base); err != nil {
		t.Fatal(err)
	}
	if err := h.writeIndexState(indexState{base: strings.Repeat("1", 40), head: strings.Repeat("2", 40)}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Divergence(context.Background()); err != nil {
		t.Fatalf("divergence with a bad index state: %v", err)
	}
	if got, want := lsIndex(t, h), lsTree(t, h); got != want {
		t.Errorf("index after a bad state:\n%s\nwant:\n%s", got, want)
	}
	if st, err := h.readIndexState(); err != nil || st.base != head || st.head != head {
		t.Errorf("state after sync %+v, %v; want both at %s", st, err, head)
	}
	// A state cut short by a crash: the index may be behind, read afresh.
	if _, err := h.git.run(context.Background(), call{locked: true}, "read-tree", base); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.indexStatePath(), []byte(base[:10]), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Divergence(context.Background()); err != nil {
		t.Fatalf("divergence with a cut state: %v", err)
	}
	if got, want := lsIndex(t, h), lsTree(t, h); got != want {
		t.Errorf("index after a cut state:\n%s\nwant:\n%s", got, want)
	}
}

func treeHead(t *testing.T, h *History) string {
	t.Helper()
	head, err := h.head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return head
}
