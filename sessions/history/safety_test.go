package history

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// userGit runs the user's own git in ws, with a plain environment.
func userGit(t *testing.T, ws string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// repoState captures everything of the user's repository that our history
// must leave alone.
type repoState struct {
	Status, Head, Refs, Stash, Config string
	Index                             []byte
}

func captureRepo(t *testing.T, ws string) repoState {
	t.Helper()
	index, err := os.ReadFile(filepath.Join(ws, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	config, err := os.ReadFile(filepath.Join(ws, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	return repoState{
		// --no-optional-locks: looking must not refresh the index itself.
		Status: userGit(t, ws, "--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=all"),
		Head:   userGit(t, ws, "symbolic-ref", "HEAD") + userGit(t, ws, "rev-parse", "HEAD"),
		Refs:   userGit(t, ws, "for-each-ref"),
		Stash:  userGit(t, ws, "stash", "list"),
		Config: string(config),
		Index:  index,
	}
}

func TestUserRepositoryUntouched(t *testing.T) {
	ws := workspace(t)
	userGit(t, ws, "init", "-q", "-b", "main")
	write(t, ws, ".gitignore", "*.tmp\n")
	write(t, ws, "app.go", "package app\n")
	write(t, ws, "lib.go", "package app // lib\n")
	userGit(t, ws, "add", "-A")
	userGit(t, ws, "commit", "-q", "-m", "user commit")
	write(t, ws, "app.go", "package app // stashed\n")
	userGit(t, ws, "stash", "-q")
	write(t, ws, "lib.go", "package app // staged\n")
	userGit(t, ws, "add", "lib.go")
	write(t, ws, "app.go", "package app // unstaged\n")
	write(t, ws, "scratch.tmp", "ignored by the user\n")
	write(t, ws, "untracked.txt", "new\n")
	before := captureRepo(t, ws)

	ctx := context.Background()
	h := open(t, ws, Options{})
	first, _ := h.Log(ctx, "")
	write(t, ws, "agent.go", "package app // by the agent\n")
	t1 := turn(t, h, "s1", 1, []string{"agent.go"})
	if hasPrefixIn(tree(t, h, t1.Hash), ".git/") {
		t.Fatalf("the user's .git entered the history")
	}
	if _, err := h.Restore(ctx, first[0].Hash, nil, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := read(t, ws, "agent.go"); ok {
		t.Errorf("restore did not remove agent.go")
	}
	log, _ := h.Log(ctx, "")
	if _, err := h.Restore(ctx, log[0].Parent, nil, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Changes(ctx, t1.Hash); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Divergence(ctx); err != nil {
		t.Fatal(err)
	}
	// agent.go is back, as an untracked file of the user's repository.
	if err := os.Remove(filepath.Join(ws, "agent.go")); err != nil {
		t.Fatal(err)
	}
	after := captureRepo(t, ws)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("user repository changed:\nbefore %+v\nafter  %+v", before, after)
	}
	if !bytes.Equal(before.Index, after.Index) {
		t.Errorf("user index bytes changed")
	}
	if strings.Contains(userGit(t, ws, "status", "--porcelain", "--untracked-files=all"), ".state") {
		t.Errorf("the user's git sees .state")
	}
}

func TestMovedWorkspaceKeepsHistory(t *testing.T) {
	parent := workspace(t)
	ws := filepath.Join(parent, "before")
	write(t, ws, "a.txt", "1")
	h := open(t, ws, Options{})
	ctx := context.Background()
	t1 := turn(t, h, "s1", 1, nil)
	write(t, ws, "a.txt", "2")
	turn(t, h, "s1", 2, nil)

	moved := filepath.Join(parent, "after", "deeper")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(ws, moved); err != nil {
		t.Fatal(err)
	}
	h2 := open(t, moved, Options{})
	log, err := h2.Log(ctx, "")
	if err != nil || len(log) != 3 {
		t.Fatalf("log after move = %v, %v", log, err)
	}
	if div, _ := h2.Divergence(ctx); len(div) != 0 {
		t.Errorf("divergence after move: %v", div)
	}
	if _, err := h2.Restore(ctx, t1.Hash, nil, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if s, _ := read(t, moved, "a.txt"); s != "1" {
		t.Errorf("a.txt = %q after restore in the moved workspace", s)
	}
	write(t, moved, "b.txt", "new")
	c := turn(t, h2, "s1", 3, []string{"b.txt"})
	if !contain(tree(t, h2, c.Hash), "b.txt") {
		t.Errorf("commit after move lost b.txt")
	}
	if _, err := os.Stat(ws); !os.IsNotExist(err) {
		t.Errorf("something recreated the old location")
	}
}

func TestSecretsNeverRecorded(t *testing.T) {
	for _, changed := range [][]string{nil, {".env", ".env.local", "id_rsa", "certs", "app.go", "tokens.txt", "config/prod.yaml"}} {
		ws := workspace(t)
		// The user's own .gitignore un-ignores .env: our rule still wins.
		write(t, ws, ".gitignore", "!.env\n!*.key\n")
		h := open(t, ws, Options{ExtraSecretPatterns: []string{"tokens.txt", "config/prod.yaml"}})
		write(t, ws, ".env", "API_KEY=sk-secret\n")
		write(t, ws, ".env.local", "API_KEY=sk-secret\n")
		write(t, ws, "id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
		write(t, ws, "certs/server.key", "-----BEGIN PRIVATE KEY-----\n")
		write(t, ws, "certs/server.pem", "-----BEGIN CERTIFICATE-----\n")
		write(t, ws, "tokens.txt", "t\n")
		write(t, ws, "config/prod.yaml", "p\n")
		write(t, ws, "app.go", "package app\n")
		c := turn(t, h, "s1", 1, changed)
		files := tree(t, h, c.Hash)
		if !reflect.DeepEqual(files, []string{".gitignore", "app.go"}) {
			t.Errorf("changed %v: tree = %v, want no secrets", changed, files)
		}
		out, err := h.git.run(context.Background(), call{}, "log", "--all", "-p")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "sk-secret") || strings.Contains(string(out), "PRIVATE KEY") {
			t.Errorf("a secret's content is in the history")
		}
		if div, _ := h.Divergence(context.Background()); len(div) != 0 {
			t.Errorf("secrets reported as divergence: %v", div)
		}
	}
}

func TestNewSecretPatternDropsRecordedFile(t *testing.T) {
	ws := workspace(t)
	write(t, ws, "creds.json", "{}")
	h := open(t, ws, Options{})
	first, _ := h.Log(context.Background(), "")
	if !contain(tree(t, h, first[0].Hash), "creds.json") {
		t.Fatalf("creds.json not recorded before it was a secret")
	}
	h = open(t, ws, Options{ExtraSecretPatterns: []string{"creds.json"}})
	c := turn(t, h, "s1", 1, []string{})
	if contain(tree(t, h, c.Hash), "creds.json") {
		t.Errorf("creds.json still recorded after becoming a secret")
	}
	if _, ok := read(t, ws, "creds.json"); !ok {
		t.Errorf("dropping a secret from the history deleted the file")
	}
}

func TestOversizedFileSkippedAndListed(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{MaxFileSize: 1024})
	write(t, ws, "big.bin", strings.Repeat("x", 4096))
	write(t, ws, "small.txt", "fine")
	c := turn(t, h, "s1", 1, nil)
	want := []SkippedFile{{Path: "big.bin", Size: 4096}}
	if !reflect.DeepEqual(c.Skipped, want) {
		t.Errorf("skipped = %+v, want %+v", c.Skipped, want)
	}
	if files := tree(t, h, c.Hash); contain(files, "big.bin") || !contain(files, "small.txt") {
		t.Errorf("tree = %v", files)
	}
	shown, err := h.Show(context.Background(), c.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(shown.Skipped, want) {
		t.Errorf("logged skipped = %+v", shown.Skipped)
	}
	raw, _ := h.git.run(context.Background(), call{}, "log", "-1", "--format=%B", c.Hash)
	if !strings.Contains(string(raw), `"big.bin" (4096 bytes)`) {
		t.Errorf("message does not list the skipped file:\n%s", raw)
	}
}

func TestNestedRepositoryNotRecorded(t *testing.T) {
	ws := workspace(t)
	h := open(t, ws, Options{})
	vendor := filepath.Join(ws, "vendor", "dep")
	write(t, vendor, "dep.go", "package dep\n")
	userGit(t, vendor, "init", "-q")
	write(t, ws, "main.go", "package main\n")
	c := turn(t, h, "s1", 1, nil)
	if files := tree(t, h, c.Hash); !reflect.DeepEqual(files, []string{"main.go"}) {
		t.Errorf("tree = %v, want the nested repository left out", files)
	}
}
