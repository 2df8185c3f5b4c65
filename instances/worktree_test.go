package instances

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// operatorRepo is a repository in the middle of the operator's work: a
// staged change, an unstaged one, an untracked file, a deleted file, an
// ignored .env and a stash.
func operatorRepo(t *testing.T) string {
	t.Helper()
	ws := newRepo(t, map[string]string{
		"staged.txt": "one\n", "unstaged.txt": "two\n", "gone.txt": "bye\n",
		"dir/kept.txt": "kept\n", ".gitignore": ".env\n*.log\n",
	})
	write(t, ws, map[string]string{"stashed.txt": "x\n"})
	run(t, ws, "stash", "push", "-q", "-u", "-m", "operator's stash")
	write(t, ws, map[string]string{"staged.txt": "one staged\n"})
	run(t, ws, "add", "staged.txt")
	write(t, ws, map[string]string{
		"unstaged.txt": "two unstaged\n", "new/untracked.txt": "new\n",
		".env": "SECRET=1\n", "build.log": "log\n", ".state/sessions/s1": "{}\n",
	})
	if err := os.Remove(filepath.Join(ws, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestWorktreeStartsFromWhatTheOperatorSees(t *testing.T) {
	ws := operatorRepo(t)
	before := fingerprint(t, ws)
	m := open(t, ws, Options{})
	in, err := m.Create(Worktree, "w1")
	if err != nil {
		t.Fatal(err)
	}
	if in.Branch != "atelier/w1" || in.Head != run(t, ws, "rev-parse", "HEAD") || in.Base == in.Head {
		t.Fatalf("instance %+v", in)
	}
	if filepath.Dir(in.Path) != m.Dir() || strings.HasPrefix(in.Path, ws) {
		t.Fatalf("instance at %s, want under %s and outside the workspace", in.Path, m.Dir())
	}
	for p, want := range map[string]string{
		"staged.txt": "one staged\n", "unstaged.txt": "two unstaged\n", "new/untracked.txt": "new\n",
		"dir/kept.txt": "kept\n", "gone.txt": "<none>", ".env": "<none>", "build.log": "<none>", "stashed.txt": "<none>",
		".state/sessions/s1": "<none>",
	} {
		if got := read(t, filepath.Join(in.Path, p)); got != want {
			t.Errorf("%s in the instance: %q, want %q", p, got, want)
		}
	}
	if got := run(t, ws, "branch", "--list", "atelier/*"); got != "atelier/w1" && got != "+ atelier/w1" {
		t.Errorf("branches: %q", got)
	}
	d, err := m.Diff("w1")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 0 {
		t.Errorf("a new instance differs from its base: %+v", d.Files)
	}
	if err := m.Discard("w1", false); err != nil {
		t.Fatal(err)
	}
	if after := fingerprint(t, ws); after != before {
		t.Fatalf("the repository changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	if _, err := os.Stat(in.Path); !os.IsNotExist(err) {
		t.Errorf("the worktree folder is still there: %v", err)
	}
	if l, err := m.List(); err != nil || len(l) != 0 {
		t.Errorf("registry after discard: %v %v", l, err)
	}
}

func TestWorktreeOfACleanRepoIsHead(t *testing.T) {
	ws := newRepo(t, map[string]string{"a": "a\n"})
	m := open(t, ws, Options{})
	in, err := m.Create(Worktree, "w")
	if err != nil {
		t.Fatal(err)
	}
	if in.Base != in.Head {
		t.Errorf("base %s, want HEAD %s", in.Base, in.Head)
	}
}

func TestWorktreeCarriesIncludedIgnoredFiles(t *testing.T) {
	ws := operatorRepo(t)
	write(t, ws, map[string]string{"secrets/api.env": "K=1\n", "secrets/other": "o\n"})
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(".env\n*.log\nsecrets/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := open(t, ws, Options{Include: []string{".env", "*.env"}})
	in, err := m.Create(Worktree, "w")
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{".env": "SECRET=1\n", "secrets/api.env": "K=1\n", "secrets/other": "<none>", "build.log": "<none>"} {
		if got := read(t, filepath.Join(in.Path, p)); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
	d, err := m.Diff("w")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 0 {
		t.Errorf("carried ignored files show in the diff: %+v", d.Files)
	}
}

func TestWorktreeInitialisesSubmodules(t *testing.T) {
	sub := newRepo(t, map[string]string{"lib.go": "package lib\n"})
	ws := newRepo(t, map[string]string{"main.go": "package main\n"})
	run(t, ws, "submodule", "add", "-q", sub, "vendor/lib")
	run(t, ws, "commit", "-q", "-m", "sub")
	before := fingerprint(t, ws)
	m := open(t, ws, Options{})
	in, err := m.Create(Worktree, "w")
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(in.Path, "vendor/lib/lib.go")); got != "package lib\n" {
		t.Fatalf("the submodule's file in the instance: %q", got)
	}
	if st := run(t, in.Path, "status", "--porcelain"); st != "" {
		t.Errorf("the instance is not clean: %q", st)
	}
	if err := m.Discard("w", false); err != nil {
		t.Fatal(err)
	}
	if after := fingerprint(t, ws); after != before {
		t.Fatalf("the repository changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

func TestWorktreeRefusals(t *testing.T) {
	needGit(t)
	plain := t.TempDir()
	write(t, plain, map[string]string{"a": "a"})
	empty := t.TempDir()
	run(t, empty, "init", "-q")
	repo := newRepo(t, map[string]string{"sub/a": "a"})
	for name, ws := range map[string]string{
		"not a repository": plain, "no commit": empty, "a subfolder": filepath.Join(repo, "sub"),
	} {
		t.Run(name, func(t *testing.T) {
			m := open(t, ws, Options{})
			if _, err := m.Create(Worktree, "w"); err == nil {
				t.Fatal("made a worktree instance")
			}
			if l, err := m.List(); err != nil || len(l) != 0 {
				t.Errorf("registry after a refusal: %v %v", l, err)
			}
			if ents, _ := os.ReadDir(m.Dir()); len(ents) != 1 {
				t.Errorf("left behind: %v", names(ents))
			}
		})
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	ws := newRepo(t, map[string]string{"a": "a"})
	m := open(t, ws, Options{})
	if _, err := m.Create(Worktree, "w"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind Kind
		id   string
	}{{Worktree, "W"}, {Worktree, "../x"}, {Worktree, ".meta"}, {Worktree, ""}, {"clone", "x"}, {Copy, "w"}, {Worktree, "w"}} {
		if _, err := m.Create(c.kind, c.id); err == nil {
			t.Errorf("Create(%q, %q) succeeded", c.kind, c.id)
		}
	}
	if _, err := m.Create(Copy, "w"); !errors.Is(err, ErrExists) {
		t.Errorf("a second w: %v", err)
	}
	if l, err := m.List(); err != nil || len(l) != 1 {
		t.Errorf("registry: %v %v", l, err)
	}
	if _, err := Open(ws, Options{StateID: "nope", Root: t.TempDir()}); err == nil {
		t.Error("opened with a malformed state id")
	}
	if _, err := Open(ws, Options{StateID: testState, Root: filepath.Join(ws, "inside")}); err == nil {
		t.Error("opened with a root inside the workspace")
	}
}

// A crash while an instance is made leaves it unready; the next Open
// removes it with its worktree and branch.
func TestOpenRemovesHalfMadeInstances(t *testing.T) {
	ws := newRepo(t, map[string]string{"a": "a"})
	before := fingerprint(t, ws)
	root := t.TempDir()
	m := open(t, ws, Options{Root: root})
	in, err := m.Create(Worktree, "w")
	if err != nil {
		t.Fatal(err)
	}
	in.Ready = false
	if err := m.put(in); err != nil {
		t.Fatal(err)
	}
	m2 := open(t, ws, Options{Root: root})
	if l, err := m2.List(); err != nil || len(l) != 0 {
		t.Fatalf("registry: %v %v", l, err)
	}
	if after := fingerprint(t, ws); after != before {
		t.Fatalf("the repository changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

func TestDefaultRoot(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if r, err := DefaultRoot(); err != nil || r != "/xdg/atelier/instances" {
		t.Errorf("with XDG_DATA_HOME: %q %v", r, err)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if r, err := DefaultRoot(); err != nil || r != "/home/u/.local/share/atelier/instances" {
		t.Errorf("without: %q %v", r, err)
	}
}

// TestWorktreeWhenTheUserIgnoresState: a repository whose .gitignore lists
// .state/ (a common setup) still gets worktree instances, with the
// operator's changes and without .state/.
func TestWorktreeWhenTheUserIgnoresState(t *testing.T) {
	for _, ignore := range []string{".state/\n", ".state\n", "/.state/\n"} {
		ws := newRepo(t, map[string]string{"a": "a\n", ".gitignore": ignore})
		write(t, ws, map[string]string{".state/sessions/x.json": "{}\n", "a": "changed\n", "new": "n\n"})
		m := open(t, ws, Options{})
		in, err := m.Create(Worktree, "w")
		if err != nil {
			t.Fatalf(".gitignore %q: %v", ignore, err)
		}
		for p, want := range map[string]string{"a": "changed\n", "new": "n\n", ".state/sessions/x.json": "<none>"} {
			if got := read(t, filepath.Join(in.Path, p)); got != want {
				t.Errorf(".gitignore %q: %s = %q, want %q", ignore, p, got, want)
			}
		}
	}
}
