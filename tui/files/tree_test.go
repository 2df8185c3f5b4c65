package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/engine"
	afiles "github.com/atelier-studio/atelier/files"
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

func open(t *testing.T, root string) *Tree {
	t.Helper()
	ws, err := afiles.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ws.Close(); err != nil {
			t.Error(err)
		}
	})
	tr := New(themes.Build(themes.Dark(), true), afiles.NewTree(ws, nil))
	tr.SetSize(30, 10)
	tr.Focus()
	return tr
}

func view(tr *Tree) string { return ansi.Strip(strings.Join(tr.View(), "\n")) }

func TestLazyTree(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, "b.go", "A.md", "core/engine.go", "core/deep/x.go", ".git/HEAD", ".state/x", "node_modules/m/i.js", "build/out.bin")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := open(t, root)
	if v := view(tr); !strings.Contains(v, "listing") {
		t.Fatalf("before the listing: %q", v)
	}
	run(t, tr, tr.Init())
	v := view(tr)
	if strings.Contains(v, ".git/") || strings.Contains(v, "node_modules") || strings.Contains(v, ".state") || strings.Contains(v, "build/") {
		t.Fatalf("hidden and ignored entries show:\n%s", v)
	}
	if !strings.Contains(v, "▸ core/") || !strings.Contains(v, "A.md") {
		t.Fatalf("root view:\n%s", v)
	}
	run(t, tr, tr.HandleKey(tea.KeyPressMsg{Code: tea.KeyEnter}))
	v = view(tr)
	if !strings.Contains(v, "  ▸ deep/") || !strings.Contains(v, "    engine.go") {
		t.Fatalf("expanded:\n%s", v)
	}
	tr.ApplyChanges(Changes{{Kind: afiles.Created, Path: "core/new.go", By: "s1"}})
	markOf := func(v string) string {
		for _, l := range strings.Split(v, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == "new.go" {
				return strings.Join(f[1:], " ")
			}
		}
		return "(no new.go)"
	}
	if v = view(tr); markOf(v) != "" {
		t.Fatalf("a watcher batch should add the file, the marks staying the host's:\n%s", v)
	}
	tr.SetMarks([]engine.ChangeMark{{Path: "core/new.go", Kind: engine.MarkCreated, By: "s1"}})
	if v = view(tr); markOf(v) != "A" {
		t.Fatalf("the host's mark should show:\n%s", v)
	}
	tr.ApplyChanges(Changes{{Kind: afiles.Changed, Path: "core/new.go", By: "s1"}})
	if v = view(tr); markOf(v) != "A" {
		t.Fatalf("a later batch should leave the host's mark as it is:\n%s", v)
	}
	tr.HandleKey(tea.KeyPressMsg{Code: tea.KeyLeft})
	if v = view(tr); strings.Contains(v, "engine.go") || !strings.Contains(v, "• ") && !strings.Contains(v, "•") {
		t.Fatalf("collapsed, with the change marked on the folder:\n%s", v)
	}
}

func TestListingErrorShows(t *testing.T) {
	root := t.TempDir()
	tr := open(t, root)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	run(t, tr, tr.Init())
	if v := view(tr); !strings.Contains(v, "no such file") {
		t.Fatalf("view %q", v)
	}
}
