package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// branchState is what an instance must never move: the workspace branch's
// tip and the bytes of its index.
type branchState struct {
	head  string
	index []byte
}

func workspaceState(t *testing.T, h *History) branchState {
	t.Helper()
	head, err := h.git.run(context.Background(), call{}, "rev-parse", branch)
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(h.git.gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	return branchState{head: strings.TrimSpace(string(head)), index: index}
}

func (s branchState) same(o branchState) bool {
	return s.head == o.head && bytes.Equal(s.index, o.index)
}

// instanceOf makes a folder outside the workspace holding a copy of its
// files (as a copy instance would) and opens its history.
func instanceOf(t *testing.T, h *History, id string) (*History, string) {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range snapshotFiles(t, h.Workspace()) {
		write(t, dir, rel, content)
	}
	in, err := h.Instance(id, dir)
	if err != nil {
		t.Fatalf("Instance(%s): %v", id, err)
	}
	return in, dir
}

func TestInstanceTurnsCommitOnTheirOwnChain(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "main.go", "package main\n")
	write(t, ws, "README", "hello\n")
	h := open(t, ws, Options{})
	ctx := context.Background()
	wsTurn := turn(t, h, "w1", 1, nil)
	before := workspaceState(t, h)

	// A file only the instance has, made before its history began (by its
	// setup command, say), is in its first snapshot, not in its first turn.
	dir := t.TempDir()
	for rel, content := range snapshotFiles(t, ws) {
		write(t, dir, rel, content)
	}
	write(t, dir, "setup.out", "installed\n")
	write(t, dir, ".env", "TOKEN=x\n") // carried by [instances] include: a secret all the same
	in, err := h.Instance("i1", dir)
	if err != nil {
		t.Fatal(err)
	}
	if in.Workspace() != dir {
		t.Fatalf("instance work tree = %s", in.Workspace())
	}
	write(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	write(t, ws, ".state/sessions/s1/messages.jsonl", "{}\n")
	c, err := in.CommitTurn(ctx, TurnCommit{SessionID: "s1", Turn: 1, Summary: "add main",
		Logs: []string{filepath.Join(ws, ".state/sessions/s1/messages.jsonl")}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Instance != "i1" || c.Kind != KindTurn || c.SessionID != "s1" || c.Turn != 1 {
		t.Errorf("instance turn = %+v", c)
	}
	changes, err := in.Changes(ctx, c.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Path != "main.go" || changes[0].Status != Modified {
		t.Errorf("instance turn changes = %+v, want main.go modified only", changes)
	}
	if got := tree(t, in, c.Hash); !contain(got, ".state/sessions/s1/messages.jsonl") || contain(got, ".env") {
		t.Errorf("instance turn holds %v: want the session's log and no secret", got)
	}
	if !workspaceState(t, h).same(before) {
		t.Errorf("an instance turn moved the workspace branch or index")
	}
	if got, _ := read(t, ws, "main.go"); got != "package main\n" {
		t.Errorf("workspace main.go = %q: the instance wrote the workspace", got)
	}

	// The workspace's log does not list the instance's commits; the
	// instance's lists its own chain down to its first snapshot.
	wsLog, err := h.Log(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, wc := range wsLog {
		if wc.Instance != "" {
			t.Errorf("workspace log lists instance commit %+v", wc)
		}
	}
	inLog, err := in.Log(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(inLog) != 2 || inLog[0].Hash != c.Hash || inLog[1].Kind != KindSnapshot || inLog[1].Instance != "i1" || inLog[1].Parent != wsTurn.Hash {
		t.Fatalf("instance log = %+v, want its turn then its snapshot on %s", inLog, wsTurn.Hash)
	}
	if snap, err := in.Changes(ctx, inLog[1].Hash); err != nil || len(snap) != 1 || snap[0].Path != "setup.out" {
		t.Errorf("instance snapshot changes = %+v, %v; want setup.out", snap, err)
	}
	// The instance's commits are not the workspace's: its history refuses them.
	if _, err := h.Changes(ctx, c.Hash); !errors.Is(err, ErrBadCommit) {
		t.Errorf("workspace Changes of an instance commit: %v, want ErrBadCommit", err)
	}
	b, err := in.Blame(ctx, "main.go")
	if err != nil || b.Hash != c.Hash || b.SessionID != "s1" || b.Instance != "i1" {
		t.Errorf("instance blame main.go = %+v, %v", b, err)
	}
	if b, err := in.Blame(ctx, "README"); err != nil || b.Hash == c.Hash {
		t.Errorf("instance blame README = %+v, %v: want an earlier commit", b, err)
	}

	// A second use of the instance (a new engine) finds the chain.
	again, err := h.Instance("i1", dir)
	if err != nil {
		t.Fatal(err)
	}
	if log, err := again.Log(ctx, ""); err != nil || len(log) != 2 {
		t.Errorf("instance log after reopening = %d commits, %v", len(log), err)
	}
	// A workspace turn meanwhile leaves the instance's chain alone.
	write(t, ws, "README", "hello again\n")
	w2 := turn(t, h, "w1", 2, []string{"README"})
	if log, _ := in.Log(ctx, ""); len(log) != 2 {
		t.Errorf("instance log after a workspace turn = %d commits", len(log))
	}
	if log, _ := h.Log(ctx, ""); log[0].Hash != w2.Hash || log[0].Parent != wsTurn.Hash {
		t.Errorf("workspace chain = %+v", log[:2])
	}
	if out, err := h.git.run(ctx, call{}, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Errorf("fsck: %v\n%s", err, out)
	}
}

func TestInstanceRestoreActsOnItsFolder(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "a.txt", "one\n")
	h := open(t, ws, Options{})
	ctx := context.Background()
	in, dir := instanceOf(t, h, "i2")
	write(t, dir, "a.txt", "two\n")
	c1 := turn(t, in, "s1", 1, []string{"a.txt"})
	write(t, dir, "a.txt", "three\n")
	turn(t, in, "s1", 2, []string{"a.txt"})
	before := workspaceState(t, h)
	r, err := in.Restore(ctx, c1.Hash, []string{"a.txt"}, RestoreOptions{SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Instance != "i2" || r.Kind != KindRestore {
		t.Errorf("restore = %+v", r)
	}
	if got, _ := read(t, dir, "a.txt"); got != "two\n" {
		t.Errorf("instance a.txt = %q, want two", got)
	}
	if got, _ := read(t, ws, "a.txt"); got != "one\n" {
		t.Errorf("workspace a.txt = %q: the instance's restore wrote the workspace", got)
	}
	if !workspaceState(t, h).same(before) {
		t.Errorf("an instance restore moved the workspace branch or index")
	}
}

func TestCommitApplyRecordsProvenance(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "app.go", "v1\n")
	write(t, ws, "old.txt", "old\n")
	write(t, ws, "keep.txt", "keep\n")
	h := open(t, ws, Options{})
	ctx := context.Background()
	in, dir := instanceOf(t, h, "feature-1")
	write(t, dir, "app.go", "v2\n")
	write(t, dir, "dir with space/new\nline.txt", "new\n")
	ic := turn(t, in, "agent", 3, nil)
	if err := os.Remove(filepath.Join(dir, "old.txt")); err != nil {
		t.Fatal(err)
	}
	ic4 := turn(t, in, "agent", 4, nil)

	// The apply writes the files into the workspace, then records them.
	before := turn(t, h, "w", 1, nil) // the workspace's last commit before the apply
	write(t, ws, "app.go", "v2\n")
	write(t, ws, "dir with space/new\nline.txt", "new\n")
	if err := os.Remove(filepath.Join(ws, "old.txt")); err != nil {
		t.Fatal(err)
	}
	a := ApplyCommit{Apply: "0123abcd", Instance: "feature-1", Files: []AppliedProvenance{
		{Path: "app.go", SessionID: "agent", Turn: 3, Commit: ic.Hash},
		{Path: "dir with space/new\nline.txt", SessionID: "agent", Turn: 3, Commit: ic.Hash},
		{Path: "old.txt", SessionID: "agent", Turn: 4, Commit: ic4.Hash},
	}}
	c, made, err := h.CommitApply(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if !made || c.Kind != KindApply || c.Instance != "feature-1" || c.Apply != "0123abcd" || c.Parent != before.Hash {
		t.Errorf("apply commit = %+v, made %v", c, made)
	}
	if !strings.Contains(c.Summary, "applied instance feature-1") {
		t.Errorf("apply summary = %q", c.Summary)
	}
	shown, err := h.Show(ctx, c.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(shown.Applied, a.Files) || shown.Instance != "feature-1" || shown.Apply != "0123abcd" {
		t.Errorf("apply read back = %+v, want its provenance %+v", shown, a.Files)
	}
	changes, err := h.Changes(ctx, c.Hash)
	if err != nil {
		t.Fatal(err)
	}
	got := changesByPath(changes)
	if len(got) != 3 || got["app.go"].Status != Modified || got["old.txt"].Status != Deleted || got["dir with space/new\nline.txt"].Status != Added {
		t.Errorf("apply changes = %+v", changes)
	}

	// Blame by turn names the instance's session and turn.
	blame, err := h.BlameAll(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := blame["app.go"]; b.Hash != c.Hash || b.Kind != KindApply || b.SessionID != "agent" || b.Turn != 3 || b.Instance != "feature-1" ||
		len(b.Applied) != 1 || b.Applied[0].Commit != ic.Hash {
		t.Errorf("blame app.go = %+v", b)
	}
	if b := blame["keep.txt"]; b.Kind == KindApply {
		t.Errorf("blame keep.txt = %+v: the apply did not touch it", b)
	}
	if b, err := h.Blame(ctx, "dir with space/new\nline.txt"); err != nil || b.SessionID != "agent" || b.Turn != 3 || b.Hash != c.Hash {
		t.Errorf("blame of the new file = %+v, %v", b, err)
	}

	// A recovered apply finished twice records once.
	again, made, err := h.CommitApply(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if made || again.Hash != c.Hash {
		t.Errorf("second CommitApply = %s, made %v; want the first, not made", again.Hash, made)
	}
	if log, _ := h.Log(ctx, ""); log[0].Hash != c.Hash {
		t.Errorf("second CommitApply committed: head %s", log[0].Hash)
	}
	// Another apply whose id extends the first's is not mistaken for it.
	write(t, ws, "app.go", "v3\n")
	other, made, err := h.CommitApply(ctx, ApplyCommit{Apply: "0123abcd99", Instance: "feature-1",
		Files: []AppliedProvenance{{Path: "app.go"}}})
	if err != nil || !made || other.Parent != c.Hash {
		t.Fatalf("apply with a longer id = %+v, made %v, %v", other, made, err)
	}
	if b, _ := h.Blame(ctx, "app.go"); b.Hash != other.Hash || b.SessionID != "" || b.Turn != 0 {
		t.Errorf("blame after an apply of unknown provenance = %+v", b)
	}

	// Restoring the apply's parent undoes it, like any restore.
	undo, err := h.Restore(ctx, before.Hash, []string{"app.go", "old.txt", "dir with space"}, RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := read(t, ws, "app.go"); got != "v1\n" {
		t.Errorf("app.go after undo = %q", got)
	}
	if got, ok := read(t, ws, "old.txt"); !ok || got != "old\n" {
		t.Errorf("old.txt after undo = %q, %v", got, ok)
	}
	if _, ok := read(t, ws, "dir with space/new\nline.txt"); ok {
		t.Errorf("the applied new file survived the undo")
	}
	if undo.Kind != KindRestore || !strings.Contains(undo.Summary, "back to") {
		t.Errorf("undo = %+v", undo)
	}
}

func TestCommitApplyRefusesBadInput(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "a.txt", "a\n")
	h := open(t, ws, Options{})
	ctx := context.Background()
	write(t, ws, "a.txt", "changed\n")
	before := workspaceState(t, h)
	good := AppliedProvenance{Path: "a.txt", SessionID: "s1", Turn: 1}
	for _, tc := range []struct {
		name string
		a    ApplyCommit
		want error
	}{
		{"unknown path", ApplyCommit{Apply: "x1", Instance: "i1", Files: []AppliedProvenance{good, {Path: "never/was.txt"}}}, ErrNotFound},
		{"bad instance id", ApplyCommit{Apply: "x1", Instance: "I 1", Files: []AppliedProvenance{good}}, ErrBadInput},
		{"no apply id", ApplyCommit{Instance: "i1", Files: []AppliedProvenance{good}}, ErrBadInput},
		{"apply id with a newline", ApplyCommit{Apply: "x\nAtelier-Kind: turn", Instance: "i1", Files: []AppliedProvenance{good}}, ErrBadInput},
		{"no files", ApplyCommit{Apply: "x1", Instance: "i1"}, ErrBadInput},
		{"escaping path", ApplyCommit{Apply: "x1", Instance: "i1", Files: []AppliedProvenance{{Path: "../out.txt"}}}, ErrBadPath},
		{"state path", ApplyCommit{Apply: "x1", Instance: "i1", Files: []AppliedProvenance{{Path: ".state/git/config"}}}, ErrBadPath},
		{"twice", ApplyCommit{Apply: "x1", Instance: "i1", Files: []AppliedProvenance{good, good}}, ErrBadInput},
		{"bad session", ApplyCommit{Apply: "x1", Instance: "i1", Files: []AppliedProvenance{{Path: "a.txt", SessionID: "a b"}}}, ErrBadInput},
		{"bad commit", ApplyCommit{Apply: "x1", Instance: "i1", Files: []AppliedProvenance{{Path: "a.txt", Commit: "HEAD~1"}}}, ErrBadInput},
		{"negative turn", ApplyCommit{Apply: "x1", Instance: "i1", Files: []AppliedProvenance{{Path: "a.txt", Turn: -1}}}, ErrBadInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, made, err := h.CommitApply(ctx, tc.a)
			if !errors.Is(err, tc.want) || made {
				t.Errorf("CommitApply = made %v, %v; want %v", made, err, tc.want)
			}
			if !workspaceState(t, h).same(before) {
				t.Errorf("a refused apply changed the history")
			}
		})
	}
	// Removed files the history never recorded (ignored, secret) are not
	// unknown: the apply may have removed them.
	write(t, ws, ".gitignore", "build/\n")
	write(t, ws, "build/keep.o", "x")
	turn(t, h, "w", 1, nil)
	c, made, err := h.CommitApply(ctx, ApplyCommit{Apply: "x2", Instance: "i1", Files: []AppliedProvenance{
		{Path: "build/gone.o"}, {Path: ".env.local"}, {Path: "a.txt", SessionID: "s1", Turn: 1}}})
	if err != nil || !made {
		t.Fatalf("apply removing an ignored and a secret file = made %v, %v", made, err)
	}
	if ch, err := h.Changes(ctx, c.Hash); err != nil || len(ch) != 0 {
		t.Errorf("apply of files the history leaves out changed %+v, %v", ch, err)
	}
	in, _ := instanceOf(t, h, "i1")
	if _, _, err := in.CommitApply(ctx, ApplyCommit{Apply: "x1", Instance: "i1", Files: []AppliedProvenance{good}}); !errors.Is(err, ErrBadInput) {
		t.Errorf("CommitApply on an instance's history: %v", err)
	}
}

func TestInstanceRefusesBadInput(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "a.txt", "a\n")
	h := open(t, ws, Options{})
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	link := filepath.Join(outside, "link")
	if err := os.Symlink(filepath.Join(ws, "sub"), link); err != nil {
		t.Fatal(err)
	}
	refsBefore := sh(t, ws, "git --git-dir=.state/git for-each-ref")
	for _, tc := range []struct {
		name, id, dir string
		want          error
	}{
		{"bad id", "Bad/Id", outside, ErrBadInput},
		{"empty id", "", outside, ErrBadInput},
		{"dotted id", "../x", outside, ErrBadInput},
		{"relative folder", "i1", "rel/dir", ErrBadPath},
		{"inside the workspace", "i1", filepath.Join(ws, "sub"), ErrBadPath},
		{"the workspace", "i1", ws, ErrBadPath},
		{"holding the workspace", "i1", filepath.Dir(ws), ErrBadPath},
		{"inside through a link", "i1", link, ErrBadPath},
		{"missing folder", "i1", filepath.Join(outside, "none"), os.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if in, err := h.Instance(tc.id, tc.dir); !errors.Is(err, tc.want) || in != nil {
				t.Errorf("Instance(%q, %q) = %v, %v; want %v", tc.id, tc.dir, in, err, tc.want)
			}
		})
	}
	if got := sh(t, ws, "git --git-dir=.state/git for-each-ref"); got != refsBefore {
		t.Errorf("refused instances left refs:\n%s", got)
	}
	if entries, err := os.ReadDir(filepath.Join(ws, ".state", "git", instanceDir)); err == nil && len(entries) > 0 {
		t.Errorf("refused instances left indexes: %v", entries)
	}
	if err := h.DropInstance("Bad/Id"); !errors.Is(err, ErrBadInput) {
		t.Errorf("DropInstance of a bad id: %v", err)
	}
}

func TestDropInstanceRemovesRefAndIndex(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "a.txt", "a\n")
	h := open(t, ws, Options{})
	in, dir := instanceOf(t, h, "gone")
	write(t, dir, "a.txt", "b\n")
	c := turn(t, in, "s1", 1, nil)
	index := instanceIndex(h.git.gitDir, "gone")
	if _, err := os.Stat(index); err != nil {
		t.Fatalf("instance index: %v", err)
	}
	if err := h.DropInstance("gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(index); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("instance index after drop: %v", err)
	}
	if out := sh(t, ws, "git --git-dir=.state/git for-each-ref refs/instances"); out != "" {
		t.Errorf("instance ref after drop: %s", out)
	}
	if err := h.DropInstance("gone"); err != nil {
		t.Errorf("dropping twice: %v", err)
	}
	// A value still held begins a new chain with a snapshot on its next use.
	write(t, dir, "a.txt", "c\n")
	late := turn(t, in, "s1", 2, nil)
	if log, err := in.Log(context.Background(), ""); err != nil || len(log) != 2 || log[1].Kind != KindSnapshot || log[0].Hash != late.Hash {
		t.Errorf("log of a dropped instance used again = %+v, %v", log, err)
	}
	log, err := in.Log(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if changes, err := in.Changes(context.Background(), log[1].Hash); err != nil || len(changes) != 1 || changes[0].Path != "a.txt" {
		t.Errorf("changes of the snapshot beginning the chain again = %+v, %v", changes, err)
	}
	if err := h.DropInstance("gone"); err != nil {
		t.Fatal(err)
	}
	// The id can begin again, from the workspace as it is now.
	again, err := h.Instance("gone", dir)
	if err != nil {
		t.Fatal(err)
	}
	log, err = again.Log(context.Background(), "")
	if err != nil || len(log) != 1 || log[0].Kind != KindSnapshot || log[0].Hash == c.Hash {
		t.Errorf("log of a dropped then remade instance = %+v, %v", log, err)
	}
}

func TestWorkspaceAndInstanceCommitConcurrently(t *testing.T) {
	// The instance's history comes from the same History (one mutex) or
	// from another opened on the workspace (only the flock between them).
	for _, same := range []bool{true, false} {
		t.Run(fmt.Sprintf("same History %v", same), func(t *testing.T) {
			workspaceAndInstanceCommitConcurrently(t, same)
		})
	}
}

func workspaceAndInstanceCommitConcurrently(t *testing.T, same bool) {
	ws := workspace(t)
	write(t, ws, "shared.txt", "0\n")
	h := open(t, ws, Options{})
	from := h
	if !same {
		from = open(t, ws, Options{})
	}
	in, dir := instanceOf(t, from, "busy")
	const turns = 8
	var wg sync.WaitGroup
	errs := make(chan error, 2*turns)
	for _, side := range []struct {
		h       *History
		root    string
		session string
	}{{h, ws, "ws"}, {in, dir, "inst"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; n <= turns; n++ {
				path := side.session + ".txt"
				if err := os.WriteFile(filepath.Join(side.root, path), []byte(strconv.Itoa(n)), 0o644); err != nil {
					errs <- err
					return
				}
				if err := os.WriteFile(filepath.Join(side.root, "shared.txt"), []byte(side.session+strconv.Itoa(n)), 0o644); err != nil {
					errs <- err
					return
				}
				c, err := side.h.CommitTurn(context.Background(), TurnCommit{SessionID: side.session, Turn: n, Changed: []string{path, "shared.txt"}})
				if err != nil {
					errs <- err
					return
				}
				if c.Instance != side.h.instance {
					errs <- fmt.Errorf("%s turn %d names instance %q", side.session, n, c.Instance)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	wsLog := checkChain(t, h, turns+1)
	inLog := checkChain(t, in, turns+1)
	for i, c := range wsLog[:turns] {
		if c.SessionID != "ws" || c.Turn != turns-i || c.Instance != "" {
			t.Errorf("workspace commit %d = %+v", i, c)
		}
	}
	for i, c := range inLog[:turns] {
		if c.SessionID != "inst" || c.Turn != turns-i || c.Instance != "busy" {
			t.Errorf("instance commit %d = %+v", i, c)
		}
	}
	for _, side := range []struct {
		h       *History
		session string
	}{{h, "ws"}, {in, "inst"}} {
		files := tree(t, side.h, "HEAD")
		if side.h.instance != "" {
			files = tree(t, side.h, side.h.ref)
		}
		for _, f := range []string{"ws.txt", "inst.txt"} {
			want := f == side.session+".txt"
			if contain(files, f) != want {
				t.Errorf("%s chain holds %s: %v, want %v", side.session, f, !want, want)
			}
		}
		b, err := side.h.Blame(context.Background(), "shared.txt")
		if err != nil || b.SessionID != side.session || b.Turn != turns {
			t.Errorf("%s blame shared.txt = %+v, %v", side.session, b, err)
		}
	}
}

func TestCommitApplyOfManyFilesRecordsOnlyThem(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "beside.txt", "v1\n")
	h := open(t, ws, Options{})
	ctx := context.Background()
	n := maxKnownPaths + 10
	files := make([]AppliedProvenance, 0, n)
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("gen/f%04d.txt", i)
		write(t, ws, rel, strconv.Itoa(i))
		files = append(files, AppliedProvenance{Path: rel, SessionID: "s1", Turn: 1})
	}
	write(t, ws, "beside.txt", "an operator's edit, not the apply's\n")
	c, made, err := h.CommitApply(ctx, ApplyCommit{Apply: "big", Instance: "many", Files: files})
	if err != nil || !made {
		t.Fatalf("CommitApply = made %v, %v", made, err)
	}
	changes, err := h.Changes(ctx, c.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if got := changesByPath(changes); len(got) != n || got["beside.txt"].Path != "" {
		t.Errorf("apply of %d files recorded %d changes (beside.txt: %+v)", n, len(got), got["beside.txt"])
	}
	if shown, err := h.Show(ctx, c.Hash); err != nil || len(shown.Applied) != n {
		t.Errorf("apply read back with %d provenances, %v", len(shown.Applied), err)
	}
}
