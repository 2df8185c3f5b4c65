package files

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/sessions/history"
)

func press(s string) tea.KeyPressMsg {
	if s == "enter" {
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	if s == "down" {
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	r := []rune(s)[0]
	if r >= 'A' && r <= 'Z' {
		return tea.KeyPressMsg{Code: r + 'a' - 'A', ShiftedCode: r, Mod: tea.ModShift, Text: s}
	}
	return tea.KeyPressMsg{Code: r, Text: s}
}

// opOf runs the command a key returned and gives back its Op.
func opOf(t *testing.T, cmd tea.Cmd) (Op, bool) {
	t.Helper()
	if cmd == nil {
		return Op{}, false
	}
	op, ok := cmd().(Op)
	return op, ok
}

func writeTree(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFileOperationKeysNameTheSelection(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, "core/engine.go", "main.go")
	tr := open(t, root)
	if _, ok := opOf(t, tr.HandleKey(press("d"))); ok {
		t.Fatal("nothing is listed yet: delete has nothing to act on")
	}
	if op, ok := opOf(t, tr.HandleKey(press("a"))); !ok || op != (Op{Kind: OpNewFile}) {
		t.Fatalf("a new file goes to the root before the listing: %+v", op)
	}
	run(t, tr, tr.Init())
	cases := []struct {
		name, key string
		want      Op
	}{
		{"new file in the selected folder", "a", Op{Kind: OpNewFile, Path: "core", IsDir: true, Dir: "core"}},
		{"new folder", "A", Op{Kind: OpNewFolder, Path: "core", IsDir: true, Dir: "core"}},
		{"rename", "m", Op{Kind: OpRename, Path: "core", IsDir: true, Dir: "core"}},
		{"delete", "d", Op{Kind: OpDelete, Path: "core", IsDir: true, Dir: "core"}},
		{"upload", "u", Op{Kind: OpUpload, Path: "core", IsDir: true, Dir: "core"}},
		{"download", "D", Op{Kind: OpDownload, Path: "core", IsDir: true, Dir: "core"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op, ok := opOf(t, tr.HandleKey(press(c.key)))
			if !ok || op != c.want {
				t.Fatalf("%s: %+v", c.key, op)
			}
		})
	}
	run(t, tr, tr.HandleKey(press("enter"))) // expand core/
	tr.HandleKey(press("down"))              // core/engine.go
	if op, _ := opOf(t, tr.HandleKey(press("a"))); op.Dir != "core" || op.Path != "core/engine.go" {
		t.Fatalf("on a file, new entries go to its folder: %+v", op)
	}
	tr.HandleKey(press("down")) // main.go
	if op, _ := opOf(t, tr.HandleKey(press("u"))); op.Dir != "" {
		t.Fatalf("on a root file, uploads go to the root: %+v", op)
	}
}

// TestBlameLineFromTheHistory blames the selection against a real history:
// once per path until the history changes, an old answer dropped.
func TestBlameLineFromTheHistory(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, "a.go", "b.go")
	ctx := context.Background()
	h, err := history.Open(root, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.CommitTurn(ctx, history.TurnCommit{SessionID: "s1", Turn: 2, Summary: "edit a"}); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	tr := open(t, root)
	tr.SetBlamer(func(ctx context.Context, p string) (history.Commit, error) {
		calls.Add(1)
		return h.Blame(ctx, p)
	})
	blame := func(cmd tea.Cmd) {
		t.Helper()
		if cmd == nil {
			return
		}
		b, ok := cmd().(Blamed)
		if !ok {
			t.Fatalf("not a blame: %T", b)
		}
		if b.Commit.SessionID == "s1" {
			b.Title = "“fix”"
		}
		tr.ApplyBlame(b)
	}
	run(t, tr, tr.Init())
	if v := view(tr); !strings.HasSuffix(v, "history: …") {
		t.Fatalf("before the answer the last line waits:\n%s", v)
	}
	blame(tr.BlameSelected())
	if v := view(tr); !strings.Contains(v, "◆ turn 2 of “fix”") {
		t.Fatalf("a.go was last changed by turn 2:\n%s", v)
	}
	if tr.BlameSelected() != nil || calls.Load() != 1 {
		t.Fatalf("a cached answer is not asked again (%d calls)", calls.Load())
	}
	blame(tr.HandleKey(press("j")))
	if v := view(tr); !strings.Contains(v, "not changed by a turn") {
		t.Fatalf("b.go is only in the first snapshot:\n%s", v)
	}

	stale := tr.HandleKey(press("k")) // a.go is cached: nothing to ask
	if stale != nil {
		t.Fatal("a.go's answer is cached")
	}
	tr.ForgetBlame()
	stale = tr.BlameSelected()
	tr.ForgetBlame() // the history changed again while the blame ran
	blame(stale)
	if _, ok := tr.Blame("a.go"); ok {
		t.Fatal("an answer asked before the history changed must be dropped")
	}
	blame(tr.BlameSelected())
	if b, ok := tr.Blame("a.go"); !ok || b.Commit.Turn != 2 {
		t.Fatalf("asked again after the change: %+v", b)
	}
}
