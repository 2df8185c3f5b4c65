package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenCreatesIsolatedRepository(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "main.go", "package main\n")
	h := open(t, ws, Options{})

	if b, _ := os.ReadFile(filepath.Join(ws, ".state", ".gitignore")); string(b) != "*\n" {
		t.Errorf(".state/.gitignore = %q, want %q", b, "*\n")
	}
	cfg, err := os.ReadFile(filepath.Join(ws, ".state", "git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cfg), "worktree") {
		t.Errorf("repository config stores a work tree:\n%s", cfg)
	}
	if _, err := os.Stat(filepath.Join(ws, ".state", "git", "hooks")); err == nil {
		t.Errorf("hooks folder created from templates")
	}
	log, err := h.Log(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].Kind != KindSnapshot {
		t.Fatalf("log after open = %+v, want one snapshot", log)
	}
	if got := tree(t, h, log[0].Hash); len(got) != 1 || got[0] != "main.go" {
		t.Errorf("first snapshot holds %v, want [main.go]", got)
	}
	// Opening again makes no new commit.
	h2 := open(t, ws, Options{})
	if log2, _ := h2.Log(context.Background(), ""); len(log2) != 1 {
		t.Errorf("reopen added commits: %d", len(log2))
	}
}

func TestCommitTurnRecordsShellChanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changed []string // nil: full scan
	}{
		{"full scan", nil},
		{"known paths", []string{"new.txt", "edit.txt", "gone.txt", "old.txt", "moved.txt", "dir"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := workspace(t)
			write(t, ws, "edit.txt", "one\ntwo\n")
			write(t, ws, "gone.txt", "bye\n")
			write(t, ws, "old.txt", strings.Repeat("a line that stays the same\n", 20))
			write(t, ws, "untouched.txt", "same\n")
			h := open(t, ws, Options{})
			sh(t, ws, `printf 'fresh\n' > new.txt
printf 'one\nTWO\nthree\n' > edit.txt
rm gone.txt
mv old.txt moved.txt
mkdir -p dir/sub && printf 'deep\n' > dir/sub/f.txt`)
			write(t, ws, ".state/sessions/s1/messages.jsonl", "{}\n")
			c, err := h.CommitTurn(context.Background(), TurnCommit{
				SessionID: "s1", Turn: 1, Summary: "edit\nfiles", Changed: tc.changed,
				Logs: []string{".state/sessions/s1/messages.jsonl"},
			})
			if err != nil {
				t.Fatal(err)
			}
			if c.Kind != KindTurn || c.SessionID != "s1" || c.Turn != 1 || c.Summary != "edit files" {
				t.Errorf("commit = %+v", c)
			}
			changes, err := h.Changes(context.Background(), c.Hash)
			if err != nil {
				t.Fatal(err)
			}
			got := changesByPath(changes)
			want := map[string]FileChange{
				"new.txt":       {Path: "new.txt", Status: Added, Additions: 1},
				"edit.txt":      {Path: "edit.txt", Status: Modified, Additions: 2, Deletions: 1},
				"gone.txt":      {Path: "gone.txt", Status: Deleted, Deletions: 1},
				"moved.txt":     {Path: "moved.txt", OldPath: "old.txt", Status: Renamed},
				"dir/sub/f.txt": {Path: "dir/sub/f.txt", Status: Added, Additions: 1},
			}
			if len(got) != len(want) {
				t.Errorf("changes = %+v, want %d files", changes, len(want))
			}
			for p, w := range want {
				if got[p] != w {
					t.Errorf("change %s = %+v, want %+v", p, got[p], w)
				}
			}
			diff, err := h.Diff(context.Background(), c.Hash)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"+TWO", "-two", "+three", "+fresh", "rename from old.txt", "deleted file mode"} {
				if !strings.Contains(diff, s) {
					t.Errorf("diff lacks %q:\n%s", s, diff)
				}
			}
			if strings.Contains(diff, ".state") {
				t.Errorf("diff shows session logs:\n%s", diff)
			}
			one, err := h.Diff(context.Background(), c.Hash, "edit.txt")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(one, "+TWO") || strings.Contains(one, "fresh") {
				t.Errorf("diff of edit.txt only:\n%s", one)
			}
			if files := tree(t, h, c.Hash); !contain(files, ".state/sessions/s1/messages.jsonl") {
				t.Errorf("log not recorded: %v", files)
			}
			if div, _ := h.Divergence(context.Background()); len(div) != 0 {
				t.Errorf("divergence after commit: %v", div)
			}
		})
	}
}

func TestKnownPathsRecordOnlyThosePaths(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	write(t, ws, "a.txt", "a\n")
	write(t, ws, "b.txt", "b\n")
	c := turn(t, h, "s1", 1, []string{"a.txt"})
	if files := tree(t, h, c.Hash); !contain(files, "a.txt") || contain(files, "b.txt") {
		t.Errorf("tree = %v, want a.txt only", files)
	}
	div, err := h.Divergence(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(div) != 1 || div[0] != "b.txt" {
		t.Errorf("divergence = %v, want [b.txt]", div)
	}
	// Absolute paths inside the workspace are accepted.
	c = turn(t, h, "s1", 2, []string{filepath.Join(ws, "b.txt")})
	if !contain(tree(t, h, c.Hash), "b.txt") {
		t.Errorf("absolute known path not recorded")
	}
}

func TestEmptyTurnStillCommits(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	first, err := h.CommitTurn(context.Background(), TurnCommit{SessionID: "s1", Turn: 1, Changed: []string{},
		Logs: []string{filepath.Join(ws, ".state/sessions/s1/controls.jsonl")}})
	if err != nil {
		t.Fatalf("a log not written yet: %v", err)
	}
	second := turn(t, h, "s1", 2, nil)
	if first.Hash == second.Hash || second.Parent != first.Hash {
		t.Errorf("empty turns: %+v then %+v", first, second)
	}
	if ch, _ := h.Changes(context.Background(), second.Hash); len(ch) != 0 {
		t.Errorf("empty turn changes = %v", ch)
	}
}

func TestLogFilterAndMessage(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	write(t, ws, "a", "1")
	turn(t, h, "alpha", 1, nil)
	write(t, ws, "a", "2")
	turn(t, h, "beta", 1, nil)
	write(t, ws, "a", "3")
	c := turn(t, h, "alpha", 2, nil)
	all, err := h.Log(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 || all[0].Hash != c.Hash || all[3].Kind != KindSnapshot {
		t.Fatalf("log = %+v", all)
	}
	alpha, _ := h.Log(context.Background(), "alpha")
	if len(alpha) != 2 || alpha[0].Turn != 2 || alpha[1].Turn != 1 || alpha[0].Summary != "did things" {
		t.Errorf("alpha log = %+v", alpha)
	}
	if !alpha[0].Time.Equal(c.Time) {
		t.Errorf("logged time %v, committed %v", alpha[0].Time, c.Time)
	}
	raw, err := h.git.run(context.Background(), call{}, "log", "-1", "--format=%B", c.Hash)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"alpha turn 2: did things", "Atelier-Session: alpha", "Atelier-Turn: 2"} {
		if !strings.Contains(string(raw), s) {
			t.Errorf("message lacks %q:\n%s", s, raw)
		}
	}
}

func TestBlameAcrossSessions(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "base.txt", "base\n")
	h := open(t, ws, Options{})
	write(t, ws, "a.txt", "a1\n")
	turn(t, h, "s1", 1, []string{"a.txt"})
	write(t, ws, "b.txt", "b1\n")
	turn(t, h, "s2", 1, []string{"b.txt"})
	write(t, ws, "a.txt", "a2\n")
	turn(t, h, "s2", 2, []string{"a.txt"})
	turn(t, h, "s1", 2, []string{})

	ctx := context.Background()
	for path, want := range map[string][2]any{"a.txt": {"s2", 2}, "b.txt": {"s2", 1}} {
		c, err := h.Blame(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if c.SessionID != want[0] || c.Turn != want[1] {
			t.Errorf("blame %s = %s turn %d, want %v", path, c.SessionID, c.Turn, want)
		}
	}
	if c, _ := h.Blame(ctx, "base.txt"); c.Kind != KindSnapshot {
		t.Errorf("blame base.txt = %+v, want the first snapshot", c)
	}
	if _, err := h.Blame(ctx, "nope.txt"); !errors.Is(err, ErrNotFound) {
		t.Errorf("blame of unknown file: %v", err)
	}
	all, err := h.BlameAll(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all["a.txt"].Turn != 2 || all["b.txt"].SessionID != "s2" || all["base.txt"].Kind != KindSnapshot {
		t.Errorf("blame all = %+v", all)
	}
	some, err := h.BlameAll(ctx, []string{"b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(some) != 1 || some["b.txt"].Turn != 1 {
		t.Errorf("blame b.txt = %+v", some)
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	write(t, ws, "a.txt", "a")
	ctx := context.Background()
	cases := []struct {
		name string
		tc   TurnCommit
		want error
	}{
		{"escaping path", TurnCommit{SessionID: "s", Turn: 1, Changed: []string{"../x"}}, ErrBadPath},
		{"absolute outside", TurnCommit{SessionID: "s", Turn: 1, Changed: []string{"/etc/passwd"}}, ErrBadPath},
		{"empty session", TurnCommit{Turn: 1}, ErrBadInput},
		{"session with spaces", TurnCommit{SessionID: "a b", Turn: 1}, ErrBadInput},
		{"negative turn", TurnCommit{SessionID: "s", Turn: -1}, ErrBadInput},
		{"log outside .state", TurnCommit{SessionID: "s", Turn: 1, Logs: []string{"a.txt"}}, ErrBadInput},
		{"log in the git dir", TurnCommit{SessionID: "s", Turn: 1, Logs: []string{".state/git/config"}}, ErrBadInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, _ := h.Log(ctx, "")
			if _, err := h.CommitTurn(ctx, c.tc); !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
			after, _ := h.Log(ctx, "")
			if len(after) != len(before) {
				t.Errorf("a commit was made")
			}
		})
	}
	for _, bad := range []string{"", "zz", "HEAD", "--all", "0123456789abcdef0123456789abcdef01234567"} {
		if _, err := h.Changes(ctx, bad); !errors.Is(err, ErrBadCommit) {
			t.Errorf("Changes(%q) err = %v, want ErrBadCommit", bad, err)
		}
		if _, err := h.PreviewRestore(ctx, bad, nil); !errors.Is(err, ErrBadCommit) {
			t.Errorf("PreviewRestore(%q) err = %v, want ErrBadCommit", bad, err)
		}
	}
	if _, err := Open(filepath.Join(ws, "a.txt"), Options{}); !errors.Is(err, ErrBadPath) {
		t.Errorf("Open of a file: %v", err)
	}
	if _, err := Open(ws, Options{ExtraSecretPatterns: []string{"[oops"}}); !errors.Is(err, ErrBadInput) {
		t.Errorf("Open with a bad pattern: %v", err)
	}
}

func TestUserGitEnvironmentIsIgnored(t *testing.T) {
	ws := workspace(t)
	home := t.TempDir()
	// A hostile user setup: git variables pointing elsewhere, a global
	// config that signs commits, refuses identities and runs hooks.
	write(t, home, ".gitconfig", "[commit]\n\tgpgSign = true\n[user]\n\tuseConfigOnly = true\n[core]\n\thooksPath = "+home+"\n\tautocrlf = true\n")
	write(t, home, "pre-commit", "#!/bin/sh\nexit 1\n")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_DIR", filepath.Join(home, "nowhere"))
	t.Setenv("GIT_WORK_TREE", home)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(home, "index"))
	t.Setenv("GIT_AUTHOR_NAME", "")
	write(t, ws, "crlf.txt", "a\r\nb\r\n")
	h := open(t, ws, Options{})
	c := turn(t, h, "s1", 1, nil)
	out, err := h.git.run(context.Background(), call{}, "cat-file", "-p", c.Hash+":crlf.txt")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "a\r\nb\r\n" {
		t.Errorf("stored %q, want the bytes as they were", out)
	}
	if _, err := os.Stat(filepath.Join(home, "index")); err == nil {
		t.Errorf("user's GIT_INDEX_FILE was written")
	}
}

func TestLargeBatchIsPacked(t *testing.T) {
	ws := workspace(t)
	for i := 0; i < bulkFiles+10; i++ {
		write(t, ws, fmt.Sprintf("f/%03d.txt", i), fmt.Sprintf("file %d\n", i))
	}
	h := open(t, ws, Options{})
	out, err := h.git.run(context.Background(), call{}, "count-objects", "-v")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "packs: 1") {
		t.Errorf("first snapshot not packed:\n%s", out)
	}
	if out, err := h.git.run(context.Background(), call{}, "fsck", "--strict"); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
	write(t, ws, "f/007.txt", "changed\n")
	c := turn(t, h, "s1", 1, nil)
	d, err := h.Diff(context.Background(), c.Hash)
	if err != nil || !strings.Contains(d, "-file 7") || !strings.Contains(d, "+changed") {
		t.Errorf("diff = %q, %v", d, err)
	}
}

func TestPathsThroughASymlinkedWorkspace(t *testing.T) {
	real := workspace(t)
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	h := open(t, link, Options{})
	write(t, real, "a.txt", "a")
	// The engine may name files by the resolved path.
	c, err := h.CommitTurn(context.Background(), TurnCommit{SessionID: "s1", Turn: 1, Changed: []string{filepath.Join(real, "a.txt")}})
	if err != nil {
		t.Fatal(err)
	}
	if !contain(tree(t, h, c.Hash), "a.txt") {
		t.Errorf("a.txt not recorded")
	}
	// And the other way round: opened by the real path, named by the link.
	h = open(t, real, Options{})
	write(t, real, "b.txt", "b")
	c, err = h.CommitTurn(context.Background(), TurnCommit{SessionID: "s1", Turn: 2, Changed: []string{filepath.Join(link, "b.txt")}})
	if err != nil {
		t.Fatal(err)
	}
	if !contain(tree(t, h, c.Hash), "b.txt") {
		t.Errorf("b.txt not recorded")
	}
}
