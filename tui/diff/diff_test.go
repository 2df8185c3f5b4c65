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
