package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// One file the history cannot read never disables it: the file is left
// out, named in the commit (Skipped, with a reason, and in the message),
// and the rest is recorded.

func skippedFor(c Commit, path string) (SkippedFile, bool) {
	for _, s := range c.Skipped {
		if s.Path == path {
			return s, true
		}
	}
	return SkippedFile{}, false
}

func mkfifo(t *testing.T, ws, rel string) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(rel))
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUnreadableFileIsSkippedAndTheCommitGoesOn: a recorded file replaced
// by a named pipe (git refuses it: "unsupported file type", and used to
// fail every commit) is skipped with a notice naming it.
func TestUnreadableFileIsSkippedAndTheCommitGoesOn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changed []string
	}{
		{"full scan", nil},
		{"known paths", []string{"edit.txt", "pipe.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := workspace(t)
			write(t, ws, "edit.txt", "one\n")
			write(t, ws, "pipe.txt", "was a file\n")
			h := open(t, ws, Options{})
			write(t, ws, "edit.txt", "two\n")
			mkfifo(t, ws, "pipe.txt")

			c, err := h.CommitTurn(context.Background(), TurnCommit{SessionID: "s1", Turn: 1, Summary: "edit", Changed: tc.changed})
			if err != nil {
				t.Fatalf("one unreadable file failed the commit: %v", err)
			}
			sk, ok := skippedFor(c, "pipe.txt")
			if !ok || !sk.Unreadable() || !strings.Contains(sk.Reason, "named pipe") {
				t.Fatalf("skipped %+v, want pipe.txt as unreadable", c.Skipped)
			}
			if got := tree(t, h, c.Hash); len(got) != 1 || got[0] != "edit.txt" {
				t.Errorf("commit holds %v, want [edit.txt]", got)
			}
			if s := sh(t, ws, "git --git-dir=.state/git show "+c.Hash+":edit.txt"); s != "two\n" {
				t.Errorf("edit.txt recorded as %q", s)
			}
			msg := sh(t, ws, "git --git-dir=.state/git log -1 --format=%B "+c.Hash)
			if !strings.Contains(msg, "Not recorded, unreadable:") || !strings.Contains(msg, `"pipe.txt"`) {
				t.Errorf("message does not name the file:\n%s", msg)
			}
			log, err := h.Log(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			if sk, ok := skippedFor(log[0], "pipe.txt"); !ok || !strings.Contains(sk.Reason, "named pipe") {
				t.Errorf("Log reads back %+v", log[0].Skipped)
			}
			// Readable again: recorded by the next turn.
			if err := os.Remove(filepath.Join(ws, "pipe.txt")); err != nil {
				t.Fatal(err)
			}
			write(t, ws, "pipe.txt", "a file again\n")
			c2 := turn(t, h, "s1", 2, tc.changed)
			if len(c2.Skipped) != 0 || !contain(tree(t, h, c2.Hash), "pipe.txt") {
				t.Errorf("not recorded once readable: %+v %v", c2.Skipped, tree(t, h, c2.Hash))
			}
		})
	}
}

// TestGitRefusalIsSkipped: a file that git itself fails on, though it
// looked fine when the workspace was scanned (it changed in between, or git
// has a reason of its own), is left out with git's reason and the rest is
// staged.
func TestGitRefusalIsSkipped(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "a.txt", "a\n")
	h := open(t, ws, Options{})
	write(t, ws, "b.txt", "b\n")
	write(t, ws, "c.txt", "c\n")
	mkfifo(t, ws, "pipe")
	ctx := context.Background()
	release, err := h.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	failed, err := h.applyPlan(ctx, "", plan{update: []string{"b.txt", "pipe", "c.txt"}}, nil)
	release()
	if err != nil {
		t.Fatalf("one refused path failed the staging: %v", err)
	}
	if len(failed) != 1 || failed[0].Path != "pipe" || !strings.Contains(failed[0].Reason, "unsupported file type") {
		t.Fatalf("failed %+v", failed)
	}
	staged := sh(t, ws, "GIT_INDEX_FILE=.state/git/index git --git-dir=.state/git ls-files")
	if staged != "a.txt\nb.txt\nc.txt\n" {
		t.Errorf("staged %q", staged)
	}
}

// TestUnreadableFileAtFirstOpen: a file without read permission, in a new
// workspace, used to make Open (its first snapshot) fail, so the history
// was off for good. Root reads any file, so this runs as another user only;
// the named pipe cases above cover root.
func TestUnreadableFileAtFirstOpen(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a file without permissions: see TestUnreadableFileIsSkippedAndTheCommitGoesOn")
	}
	ws := workspace(t)
	write(t, ws, "ok.txt", "fine\n")
	write(t, ws, "secret.txt", "no\n")
	if err := os.Chmod(filepath.Join(ws, "secret.txt"), 0); err != nil {
		t.Fatal(err)
	}
	h := open(t, ws, Options{})
	log, err := h.Log(context.Background(), "")
	if err != nil || len(log) != 1 {
		t.Fatalf("log %+v %v", log, err)
	}
	if sk, ok := skippedFor(log[0], "secret.txt"); !ok || !strings.Contains(sk.Reason, "permission denied") {
		t.Errorf("skipped %+v", log[0].Skipped)
	}
	if got := tree(t, h, log[0].Hash); len(got) != 1 || got[0] != "ok.txt" {
		t.Errorf("first snapshot holds %v", got)
	}
}

// TestStateLinksAreRefused: a .state or .state/git that is a symbolic link
// is never written through.
func TestStateLinksAreRefused(t *testing.T) {
	for _, link := range []string{".state", ".state/git"} {
		t.Run(link, func(t *testing.T) {
			ws := workspace(t)
			if err := os.MkdirAll(filepath.Join(ws, ".state"), 0o755); err != nil {
				t.Fatal(err)
			}
			if link == ".state" {
				if err := os.Remove(filepath.Join(ws, ".state")); err != nil {
					t.Fatal(err)
				}
			}
			elsewhere := t.TempDir()
			if err := os.Symlink(elsewhere, filepath.Join(ws, filepath.FromSlash(link))); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(ws, Options{}); !errors.Is(err, ErrUnsafeState) {
				t.Fatalf("open: %v", err)
			}
			if left, _ := os.ReadDir(elsewhere); len(left) != 0 {
				t.Errorf("written through the link: %v", left)
			}
		})
	}
}
