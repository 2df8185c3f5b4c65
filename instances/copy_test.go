package instances

import (
	"os"
	"path/filepath"
	"testing"
)

// folder makes a plain (not git) folder with what a copy must leave out
// and what it must keep exactly.
func folder(t *testing.T) (ws, outside string) {
	t.Helper()
	ws = t.TempDir()
	outside = t.TempDir()
	write(t, ws, map[string]string{
		"src/main.go": "package main\n", ".gitignore": "*.log\nsecret/\n", "app.log": "log\n",
		"secret/key": "k\n", "node_modules/pkg/index.js": "x\n", "web/node_modules/y.js": "y\n",
		".venv/bin/python": "p\n", "target/out": "o\n", ".state/sessions/s": "s\n",
		"docs/dist.md": "not a dist folder\n",
	})
	write(t, outside, map[string]string{"passwd": "root\n"})
	if err := os.WriteFile(filepath.Join(ws, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src/main.go", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "passwd"), filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	return ws, outside
}

func TestCopyOmitsAndKeeps(t *testing.T) {
	ws, outside := folder(t)
	m := open(t, ws, Options{})
	in, err := m.Create(Copy, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if in.Kind != Copy || in.Base != "" || in.Branch != "" {
		t.Fatalf("instance %+v", in)
	}
	for p, want := range map[string]string{
		"src/main.go": "package main\n", ".gitignore": "*.log\nsecret/\n", "docs/dist.md": "not a dist folder\n",
		"app.log": "<none>", "secret/key": "<none>", "node_modules/pkg/index.js": "<none>",
		"web/node_modules/y.js": "<none>", ".venv/bin/python": "<none>", "target/out": "<none>", ".state/sessions/s": "<none>",
	} {
		if got := read(t, filepath.Join(in.Path, p)); got != want {
			t.Errorf("%s in the copy: %q, want %q", p, got, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(in.Path, "run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh: %v %v, want mode 0755", fi, err)
	}
	for name, want := range map[string]string{"link": "src/main.go", "escape": filepath.Join(outside, "passwd")} {
		got, err := os.Readlink(filepath.Join(in.Path, name))
		if err != nil || got != want {
			t.Errorf("%s: a link to %q (%v), want %q", name, got, err, want)
		}
	}
	d, err := m.Diff("c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 0 {
		t.Errorf("a new copy differs from its base: %+v", d.Files)
	}
	if err := m.Discard("c1", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(in.Path); !os.IsNotExist(err) {
		t.Errorf("the copy is still there: %v", err)
	}
	if _, err := os.Stat(m.manifestPath("c1")); !os.IsNotExist(err) {
		t.Errorf("the manifest is still there: %v", err)
	}
}

func TestCopyOmitList(t *testing.T) {
	ws, _ := folder(t)
	m := open(t, ws, Options{Omit: []string{"src"}})
	in, err := m.Create(Copy, "c")
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(in.Path, "src/main.go")); got != "<none>" {
		t.Errorf("src/main.go copied although omitted")
	}
	if got := read(t, filepath.Join(in.Path, "node_modules/pkg/index.js")); got != "x\n" {
		t.Errorf("node_modules not copied with a custom omit list: %q", got)
	}
}

// A copy of a git workspace carries its .git (the agent may commit there),
// and the diff never reports it.
func TestCopyOfARepository(t *testing.T) {
	ws := newRepo(t, map[string]string{"a.txt": "a\n"})
	m := open(t, ws, Options{})
	in, err := m.Create(Copy, "c")
	if err != nil {
		t.Fatal(err)
	}
	write(t, in.Path, map[string]string{"a.txt": "a changed\n"})
	run(t, in.Path, "commit", "-qam", "agent's commit")
	d, err := m.Diff("c")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 1 || d.Files[0].Path != "a.txt" || d.Files[0].Added != 1 || d.Files[0].Removed != 1 {
		t.Fatalf("diff %+v", d.Files)
	}
	if run(t, ws, "log", "--oneline") == run(t, in.Path, "log", "--oneline") {
		t.Error("the agent's commit reached the workspace's repository")
	}
}

func TestSizeAndEstimate(t *testing.T) {
	ws, _ := folder(t)
	write(t, ws, map[string]string{"big": string(make([]byte, 100_000))})
	m := open(t, ws, Options{})
	est, err := m.EstimateCopy()
	if err != nil {
		t.Fatal(err)
	}
	// src/main.go, .gitignore, docs/dist.md, run.sh, link, escape, big
	if est.Files != 7 || est.Bytes < 100_000 || est.Bytes > 101_000 {
		t.Errorf("estimate %+v", est)
	}
	if _, err := m.Create(Copy, "c"); err != nil {
		t.Fatal(err)
	}
	sz, err := m.Size("c")
	if err != nil {
		t.Fatal(err)
	}
	if sz.Files != 7 || sz.Bytes < 100_000 {
		t.Errorf("size %+v", sz)
	}
	if _, err := m.Size("nope"); err == nil {
		t.Error("a size for no instance")
	}
}

// Ignored files the include patterns name are copied, and stay out of
// the diff and of an apply.
func TestCopyCarriesIncludedIgnoredFiles(t *testing.T) {
	ws, _ := folder(t)
	write(t, ws, map[string]string{"secret/deep/api.env": "K=1\n", ".env": "E=1\n"})
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("*.log\nsecret/\n.env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := open(t, ws, Options{Include: []string{".env", "*.env"}})
	est, err := m.EstimateCopy()
	if err != nil {
		t.Fatal(err)
	}
	in, err := m.Create(Copy, "c")
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{".env": "E=1\n", "secret/deep/api.env": "K=1\n", "secret/key": "<none>", "app.log": "<none>"} {
		if got := read(t, filepath.Join(in.Path, p)); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
	write(t, in.Path, map[string]string{".env": "E=2\n", "secret/deep/api.env": "K=2\n"})
	d, err := m.Diff("c")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 0 {
		t.Errorf("carried files in the diff: %+v", d.Files)
	}
	sz, err := m.Size("c")
	if err != nil {
		t.Fatal(err)
	}
	if est.Files != sz.Files {
		t.Errorf("estimated %d files, the copy has %d", est.Files, sz.Files)
	}
}
