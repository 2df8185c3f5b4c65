package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func previewByPath(p RestorePreview) map[string]RestoreFile {
	m := map[string]RestoreFile{}
	for _, f := range p.Files {
		m[f.Path] = f
	}
	return m
}

func TestRestoreRoundTripAndUndo(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	ctx := context.Background()
	write(t, ws, "keep.txt", "v1\n")
	write(t, ws, "dir/edit.txt", "v1\n")
	write(t, ws, "dir/gone.txt", "v1\n")
	t1 := turn(t, h, "s1", 1, nil)
	after1 := snapshotFiles(t, ws)

	sh(t, ws, `printf 'v2\n' > dir/edit.txt; rm dir/gone.txt; mkdir -p new/deep; printf 'n\n' > new/deep/file.txt`)
	write(t, ws, ".state/sessions/s1/turns.jsonl", "turn 2\n")
	c2, err := h.CommitTurn(ctx, TurnCommit{SessionID: "s1", Turn: 2, Logs: []string{".state/sessions/s1/turns.jsonl"}})
	if err != nil {
		t.Fatal(err)
	}
	after2 := snapshotFiles(t, ws)

	p, err := h.PreviewRestore(ctx, t1.Hash[:8], nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.Hash != t1.Hash || p.Target.Turn != 1 {
		t.Errorf("preview target = %+v", p.Target)
	}
	got := previewByPath(p)
	want := map[string]Action{"dir/edit.txt": ActionModify, "dir/gone.txt": ActionCreate, "new/deep/file.txt": ActionDelete}
	if len(got) != len(want) {
		t.Errorf("preview = %+v", p.Files)
	}
	for path, a := range want {
		if f := got[path]; f.Action != a || f.Blocked != "" || f.UserChanged || len(f.ChangedBy) != 0 {
			t.Errorf("preview %s = %+v, want %s with no flags", path, f, a)
		}
	}
	if !reflect.DeepEqual(snapshotFiles(t, ws), after2) {
		t.Fatalf("preview changed the workspace")
	}

	r, err := h.Restore(ctx, t1.Hash, nil, RestoreOptions{SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != KindRestore || r.RestoredFrom != t1.Hash || r.Parent != c2.Hash {
		t.Errorf("restore commit = %+v", r)
	}
	if got := snapshotFiles(t, ws); !reflect.DeepEqual(got, after1) {
		t.Errorf("after restore = %v, want %v", got, after1)
	}
	if _, err := os.Stat(filepath.Join(ws, "new")); !os.IsNotExist(err) {
		t.Errorf("emptied folder new/ left behind")
	}
	if log, _ := h.Log(ctx, "s1"); log[0].Kind != KindRestore || log[0].RestoredFrom != t1.Hash {
		t.Errorf("log head = %+v", log[0])
	}
	// The session log is never restored.
	if s, _ := read(t, ws, ".state/sessions/s1/turns.jsonl"); s != "turn 2\n" {
		t.Errorf("restore touched the session log: %q", s)
	}
	if div, _ := h.Divergence(ctx); len(div) != 0 {
		t.Errorf("divergence after restore: %v", div)
	}

	// Undo: restore the commit before the restore.
	if _, err := h.Restore(ctx, r.Parent, nil, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := snapshotFiles(t, ws); !reflect.DeepEqual(got, after2) {
		t.Errorf("after undo = %v, want %v", got, after2)
	}
	write(t, ws, "fresh.txt", "not recorded yet")
	before, _ := h.Log(ctx, "")
	if _, err := h.Restore(ctx, c2.Hash, nil, RestoreOptions{}); !errors.Is(err, ErrNothingToRestore) {
		t.Errorf("restore to the current state: %v", err)
	}
	if after, _ := h.Log(ctx, ""); len(after) != len(before) {
		t.Errorf("a restore with nothing to do made %d commits", len(after)-len(before))
	}
}

func TestRestoreChosenFiles(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	ctx := context.Background()
	write(t, ws, "a.txt", "a1")
	write(t, ws, "b.txt", "b1")
	write(t, ws, "sub/c.txt", "c1")
	t1 := turn(t, h, "s1", 1, nil)
	write(t, ws, "a.txt", "a2")
	write(t, ws, "b.txt", "b2")
	write(t, ws, "sub/c.txt", "c2")
	turn(t, h, "s1", 2, nil)

	p, err := h.PreviewRestore(ctx, t1.Hash, []string{"a.txt", "sub"})
	if err != nil {
		t.Fatal(err)
	}
	if got := previewByPath(p); len(got) != 2 || got["a.txt"].Action != ActionModify || got["sub/c.txt"].Action != ActionModify {
		t.Errorf("preview = %+v", p.Files)
	}
	if _, err := h.Restore(ctx, t1.Hash, []string{"a.txt", "sub"}, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.txt": "a1", "b.txt": "b2", "sub/c.txt": "c1"}
	if got := snapshotFiles(t, ws); !reflect.DeepEqual(got, want) {
		t.Errorf("workspace = %v, want %v", got, want)
	}
	for _, bad := range [][]string{{"../x"}, {".state/sessions/s1/messages.jsonl"}, {".git/config"}} {
		if _, err := h.Restore(ctx, t1.Hash, bad, RestoreOptions{}); !errors.Is(err, ErrBadPath) {
			t.Errorf("restore %v: %v, want ErrBadPath", bad, err)
		}
	}
	if _, err := h.PreviewRestore(ctx, t1.Hash, []string{"never.txt"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("restore of an unknown file: %v", err)
	}
	if got := snapshotFiles(t, ws); !reflect.DeepEqual(got, want) {
		t.Errorf("bad restores changed the workspace: %v", got)
	}
}

func TestPreviewFlagsUserAndOtherSessions(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	ctx := context.Background()
	for _, f := range []string{"mine.txt", "theirs.txt", "user.txt", "outside.txt"} {
		write(t, ws, f, "1")
	}
	t1 := turn(t, h, "s1", 1, nil)
	write(t, ws, "mine.txt", "2")
	turn(t, h, "s1", 2, []string{"mine.txt"})
	write(t, ws, "theirs.txt", "2")
	turn(t, h, "s2", 1, []string{"theirs.txt"})
	write(t, ws, "outside.txt", "2")
	if _, err := h.Snapshot(ctx, "edits while the studio was closed"); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "user.txt", "uncommitted")
	write(t, ws, "brand-new.txt", "never recorded")

	p, err := h.PreviewRestore(ctx, t1.Hash, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := previewByPath(p)
	check := func(path string, user bool, by []string) {
		t.Helper()
		f, ok := got[path]
		if !ok {
			t.Errorf("%s not in preview %+v", path, p.Files)
			return
		}
		if f.UserChanged != user || !reflect.DeepEqual(f.ChangedBy, by) || f.Action != ActionModify {
			t.Errorf("%s = %+v, want user %v, by %v", path, f, user, by)
		}
	}
	check("mine.txt", false, nil)
	check("theirs.txt", false, []string{"s2"})
	check("outside.txt", true, nil)
	check("user.txt", true, nil)
	if _, ok := got["brand-new.txt"]; ok || len(got) != 4 {
		t.Errorf("preview = %+v; a file never recorded must not be touched", p.Files)
	}

	// Restoring saves the uncommitted edit first, so undo gets it back.
	r, err := h.Restore(ctx, t1.Hash, nil, RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := read(t, ws, "brand-new.txt"); s != "never recorded" {
		t.Errorf("restore touched a file it never recorded")
	}
	if s, _ := read(t, ws, "user.txt"); s != "1" {
		t.Errorf("user.txt = %q after restore", s)
	}
	saved, err := h.Show(ctx, r.Parent)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Kind != KindSnapshot {
		t.Fatalf("restore's parent = %+v, want the saved edits", saved)
	}
	if _, err := h.Restore(ctx, saved.Hash, nil, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if s, _ := read(t, ws, "user.txt"); s != "uncommitted" {
		t.Errorf("undo lost the user's edit: %q", s)
	}
}

func TestRestoreLeavesIgnoredFilesAlone(t *testing.T) {
	ws := workspace(t)
	write(t, ws, ".gitignore", "build/\n*.log\n")
	write(t, ws, "notes.txt", "v1")
	h := open(t, ws, Options{})
	ctx := context.Background()
	t0, _ := h.Log(ctx, "")
	write(t, ws, "build/out.bin", "artifact")
	write(t, ws, "run.log", "log")
	write(t, ws, "notes.txt", "v2")
	c := turn(t, h, "s1", 1, nil)
	if files := tree(t, h, c.Hash); hasPrefixIn(files, "build/") || contain(files, "run.log") {
		t.Errorf("ignored files recorded: %v", files)
	}
	// A file recorded at the target and ignored since: its current content
	// is not in the history, so the restore must not overwrite it.
	write(t, ws, "notes.txt", "v3")
	turn(t, h, "s1", 2, nil)
	write(t, ws, ".gitignore", "build/\n*.log\nsecret-notes/\n")
	write(t, ws, "secret-notes/x", "ignored from the start")
	turn(t, h, "s1", 3, nil)

	p, err := h.PreviewRestore(ctx, t0[0].Hash, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Files {
		if hasPrefixIn([]string{f.Path}, "build/") || f.Path == "run.log" || hasPrefixIn([]string{f.Path}, "secret-notes/") {
			t.Errorf("preview touches ignored %+v", f)
		}
	}
	if _, err := h.Restore(ctx, t0[0].Hash, nil, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"build/out.bin": "artifact", "run.log": "log", "secret-notes/x": "ignored from the start", "notes.txt": "v1"} {
		if s, ok := read(t, ws, path); !ok || s != want {
			t.Errorf("%s = %q (exists %v), want %q", path, s, ok, want)
		}
	}
}

func TestRestoreBlocksUnrecordedContent(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{MaxFileSize: 16})
	ctx := context.Background()
	write(t, ws, "grows.txt", "small")
	t1 := turn(t, h, "s1", 1, nil)
	write(t, ws, "grows.txt", "now far larger than sixteen bytes")
	c := turn(t, h, "s1", 2, []string{"grows.txt"})
	if len(c.Skipped) != 1 || c.Skipped[0].Path != "grows.txt" {
		t.Fatalf("skipped = %+v", c.Skipped)
	}
	p, err := h.PreviewRestore(ctx, t1.Hash, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 1 || p.Files[0].Blocked == "" {
		t.Fatalf("preview = %+v, want grows.txt blocked", p.Files)
	}
	if _, err := h.Restore(ctx, t1.Hash, nil, RestoreOptions{}); !errors.Is(err, ErrNothingToRestore) {
		t.Errorf("restore: %v", err)
	}
	if s, _ := read(t, ws, "grows.txt"); s != "now far larger than sixteen bytes" {
		t.Errorf("unrecorded content overwritten: %q", s)
	}
}

func TestRestoreOfFileReplacedByFolder(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	ctx := context.Background()
	write(t, ws, "thing", "a file")
	t1 := turn(t, h, "s1", 1, nil)
	sh(t, ws, "rm thing && mkdir thing && echo x > thing/inner")
	turn(t, h, "s1", 2, nil)
	if _, err := h.Restore(ctx, t1.Hash, nil, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if s, _ := read(t, ws, "thing"); s != "a file" {
		t.Errorf("thing = %q", s)
	}
	write(t, ws, "other", "x")
	t3 := turn(t, h, "s1", 3, nil)
	sh(t, ws, "rm other && mkdir other && echo y > other/f")
	turn(t, h, "s1", 4, nil)
	if _, err := h.Restore(ctx, t3.Hash, []string{"other"}, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if s, _ := read(t, ws, "other"); s != "x" {
		t.Errorf("other = %q", s)
	}
}

func TestNewlyIgnoredFileLeavesHistoryAndIsKept(t *testing.T) {
	for _, known := range []bool{false, true} {
		ws := workspace(t)
		write(t, ws, "dist/app.js", "v1")
		h := open(t, ws, Options{})
		ctx := context.Background()
		first, _ := h.Log(ctx, "")
		write(t, ws, ".gitignore", "dist/\n")
		write(t, ws, "dist/app.js", "v2, built after the user ignored dist/")
		var changed []string
		if known {
			changed = []string{".gitignore", "dist/app.js"}
		}
		c := turn(t, h, "s1", 1, changed)
		if contain(tree(t, h, c.Hash), "dist/app.js") {
			t.Errorf("known %v: a newly ignored file stays in the history", known)
		}
		if _, err := h.Restore(ctx, first[0].Hash, nil, RestoreOptions{}); err != nil {
			t.Fatal(err)
		}
		if s, _ := read(t, ws, "dist/app.js"); s != "v2, built after the user ignored dist/" {
			t.Errorf("known %v: restore overwrote an ignored file: %q", known, s)
		}
		if _, ok := read(t, ws, ".gitignore"); ok {
			t.Errorf("known %v: .gitignore not removed by the restore", known)
		}
	}
}

func TestRestoreSymlinkAndMode(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	ctx := context.Background()
	write(t, ws, "run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(ws, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("run.sh", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	t1 := turn(t, h, "s1", 1, nil)
	sh(t, ws, "rm link run.sh")
	turn(t, h, "s1", 2, nil)
	if _, err := h.Restore(ctx, t1.Hash, nil, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(ws, "link")); err != nil || target != "run.sh" {
		t.Errorf("link = %q, %v", target, err)
	}
	if st, err := os.Stat(filepath.Join(ws, "run.sh")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh mode lost: %v %v", st, err)
	}
}
