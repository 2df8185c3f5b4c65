package diff

import (
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/themes"
)

func sample() string {
	var a, b []string
	for i := 0; i < 60; i++ {
		a = append(a, "line "+strconv.Itoa(i))
		if i == 5 || i == 40 {
			b = append(b, "changed "+strconv.Itoa(i))
			continue
		}
		b = append(b, "line "+strconv.Itoa(i))
	}
	return core.UnifiedDiff("f.txt", strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n")
}

func TestHunkNavigation(t *testing.T) {
	v := New(themes.Build(themes.Dark(), true), "f.txt", sample())
	v.SetSize(60, 8)
	if len(v.hunks) != 2 {
		t.Fatalf("%d hunks, want 2", len(v.hunks))
	}
	v.HandleKey(tea.KeyPressMsg{Code: ']', Text: "]"})
	if !strings.HasPrefix(v.lines[v.Offset()], "@@") {
		t.Fatalf("] should land on a hunk header, at %q", v.lines[v.Offset()])
	}
	first := v.Offset()
	v.HandleKey(tea.KeyPressMsg{Code: ']', Text: "]"})
	if v.Offset() <= first {
		t.Fatal("] again moves to the second hunk")
	}
	view := ansi.Strip(strings.Join(v.View(), "\n"))
	if !strings.Contains(view, "hunk 2/2") || !strings.Contains(view, "+changed 40") {
		t.Fatalf("view:\n%s", view)
	}
	v.HandleKey(tea.KeyPressMsg{Code: '[', Text: "["})
	if v.Offset() != first {
		t.Fatalf("[ returns to the first hunk: %d, want %d", v.Offset(), first)
	}
}

func TestLineColours(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	if Line(st, "+a") == Line(st, "-a") {
		t.Error("added and removed lines look alike")
	}
	if a, d := Stat(sample()); a != 2 || d != 2 {
		t.Errorf("stat +%d -%d", a, d)
	}
}

// TestHunkCount: the header counts hunks from 1 (above the first, its
// file lines, the first is the one coming), and a diff of no hunk (a
// binary file) says so instead of "hunk 0/0" and offers no hunk keys.
func TestHunkCount(t *testing.T) {
	st := themes.Build(themes.Dark(), true)
	v := New(st, "f.txt", sample())
	v.SetSize(60, 8)
	if head := ansi.Strip(v.View()[0]); !strings.Contains(head, "hunk 1/2") {
		t.Fatalf("at the top: %q", head)
	}
	bin := New(st, "logo.png", "diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ")
	bin.SetSize(60, 8)
	head := ansi.Strip(bin.View()[0])
	if !strings.Contains(head, "no line changes") || strings.Contains(head, "hunk") || strings.Contains(head, "] next") {
		t.Fatalf("a diff of no hunk: %q", head)
	}
}
