package instances

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const testState = "0123456789abcdef0123456789abcdef"

// needGit skips a test on a machine without git.
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: instances need git")
	}
}

// run runs git in dir and returns its trimmed output.
func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// write writes files (path → content) under dir, making folders.
func write(t testing.TB, dir string, fs map[string]string) {
	t.Helper()
	for p, c := range fs {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// read returns a file's content, "<none>" when it does not exist.
func read(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return "<none>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newRepo makes a repository with committed files.
func newRepo(t testing.TB, fs map[string]string) string {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	write(t, dir, fs)
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "init")
	return dir
}

// open opens the instances of ws under a temporary root.
func open(t testing.TB, ws string, opt Options) *Manager {
	t.Helper()
	opt.StateID = testState
	if opt.Root == "" {
		opt.Root = t.TempDir()
	}
	m, err := Open(ws, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fingerprint is everything of a repository that instances must leave as
// it was: HEAD, the index's bytes, refs (and their packed file), the stash,
// the configuration, the worktree list and `git status`.
func fingerprint(t testing.TB, dir string) string {
	t.Helper()
	var b bytes.Buffer
	for _, f := range []string{"HEAD", "index", "packed-refs", "config"} {
		c, err := os.ReadFile(filepath.Join(dir, ".git", f))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		b.WriteString("== " + f + "\n")
		b.Write(c)
	}
	for _, args := range [][]string{
		{"for-each-ref"}, {"stash", "list"}, {"worktree", "list", "--porcelain"},
		{"--no-optional-locks", "status", "--porcelain", "--ignored", "--untracked-files=all"},
	} {
		b.WriteString("== " + strings.Join(args, " ") + "\n")
		b.WriteString(run(t, dir, args...))
		b.WriteString("\n")
	}
	ents, err := os.ReadDir(filepath.Join(dir, ".git", "worktrees"))
	if err == nil {
		b.WriteString("== worktrees: " + strings.Join(names(ents), ",") + "\n")
	}
	return b.String()
}

func names(ents []os.DirEntry) []string {
	out := make([]string, len(ents))
	for i, e := range ents {
		out[i] = e.Name()
	}
	return out
}
