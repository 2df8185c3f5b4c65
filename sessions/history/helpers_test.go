package history

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/internal/testreq"
)

// workspace makes an empty workspace, skipping the test where git is
// missing.
func workspace(t testing.TB) string {
	t.Helper()
	testreq.Binary(t, "git", "git")
	return t.TempDir()
}

func open(t testing.TB, ws string, o Options) *History {
	t.Helper()
	h, err := Open(ws, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return h
}

func write(t testing.TB, ws, rel, content string) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, ws, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// sh runs a shell script in dir, as an agent's command would: the history
// only learns of its effects by scanning.
func sh(t testing.TB, dir, script string) string {
	t.Helper()
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sh %q: %v\n%s", script, err, out)
	}
	return string(out)
}

// turn commits a turn, failing the test on error.
func turn(t testing.TB, h *History, session string, n int, changed []string) Commit {
	t.Helper()
	c, err := h.CommitTurn(context.Background(), TurnCommit{SessionID: session, Turn: n, Summary: "did things", Changed: changed})
	if err != nil {
		t.Fatalf("CommitTurn %s %d: %v", session, n, err)
	}
	return c
}

// tree lists the paths recorded in commit.
func tree(t testing.TB, h *History, commit string) []string {
	t.Helper()
	out, err := h.git.run(context.Background(), call{}, "ls-tree", "-r", "-z", "--name-only", commit)
	if err != nil {
		t.Fatal(err)
	}
	files := splitNul(out)
	sort.Strings(files)
	return files
}

// snapshotFiles reads every file of the workspace outside .state and .git
// into a map, to compare whole workspaces.
func snapshotFiles(t testing.TB, ws string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.Walk(ws, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		rel = filepath.ToSlash(rel)
		if info.IsDir() && (rel == ".state" || rel == ".git") {
			return filepath.SkipDir
		}
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func changesByPath(cs []FileChange) map[string]FileChange {
	m := map[string]FileChange{}
	for _, c := range cs {
		m[c.Path] = c
	}
	return m
}

func contain(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasPrefixIn(list []string, prefix string) bool {
	for _, x := range list {
		if strings.HasPrefix(x, prefix) {
			return true
		}
	}
	return false
}
