package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

func run(t *testing.T, tr *Tree, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		return
	}
	switch m := cmd().(type) {
	case Loaded:
		tr.Apply(m)
	case tea.BatchMsg:
		for _, c := range m {
			run(t, tr, c)
		}
	default:
		t.Fatalf("unexpected message %T", m)
	}
}

func TestLazyTree(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"b.go", "A.md", "core/engine.go", "core/deep/x.go", ".git/HEAD", ".state/x", "node_modules/m/i.js"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(root, p), nil, 0o644)
	}
	listed := []string{}
	base := DirLister(root)
	tr := New(themes.Build(themes.Dark(), true), func(dir string) ([]Entry, error) {
		listed = append(listed, dir)
		return base(dir)
	})
	tr.SetSize(30, 10)
	tr.Focus()
	if v := ansi.Strip(strings.Join(tr.View(), "\n")); !strings.Contains(v, "listing") {
		t.Fatalf("before the listing: %q", v)
	}
	run(t, tr, tr.Init())
	v := ansi.Strip(strings.Join(tr.View(), "\n"))
	if want := "▸ core/\n  A.md\n  b.go"; v != want {
		t.Fatalf("root view:\n%s\nwant:\n%s", v, want)
	}
	if len(listed) != 1 {
		t.Fatalf("listed %v: only the root should be listed at first", listed)
	}
	run(t, tr, tr.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter}))
	v = ansi.Strip(strings.Join(tr.View(), "\n"))
	if !strings.Contains(v, "  ▸ deep/") || !strings.Contains(v, "    engine.go") {
		t.Fatalf("expanded:\n%s", v)
	}
	os.WriteFile(filepath.Join(root, "core", "new.go"), nil, 0o644)
	run(t, tr, tr.Refresh())
	if v = ansi.Strip(strings.Join(tr.View(), "\n")); !strings.Contains(v, "new.go") {
		t.Fatalf("refresh should show the new file:\n%s", v)
	}
	tr.HandleKey(tea.KeyPressMsg{Code: tea.KeyLeft})
	if v = ansi.Strip(strings.Join(tr.View(), "\n")); strings.Contains(v, "engine.go") {
		t.Fatalf("collapsed:\n%s", v)
	}
}

func TestListingErrorShows(t *testing.T) {
	tr := New(themes.Build(themes.Dark(), true), DirLister(filepath.Join(t.TempDir(), "gone")))
	tr.SetSize(40, 5)
	run(t, tr, tr.Init())
	if v := ansi.Strip(strings.Join(tr.View(), "\n")); !strings.Contains(v, "no such file") {
		t.Fatalf("view %q", v)
	}
}
