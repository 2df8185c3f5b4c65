package input

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

// TestMultiLines: a Multi line keeps a paste's breaks, moves between its
// lines with up and down (keeping the column where the line has it),
// edits within the current line with home, end and ctrl+u, wraps a long
// line, and draws at most MaxRows rows, those around the cursor.
func TestMultiLines(t *testing.T) {
	l := New(themes.Build(themes.Dark(), true), "> ")
	l.Multi, l.MaxRows = true, 3
	l.SetWidth(12)
	l.Focus()
	l.Update(tea.PasteMsg{Content: "alpha\r\nbe\rgamma"})
	if l.Value() != "alpha\nbe\ngamma" {
		t.Fatalf("a paste keeps its lines: %q", l.Value())
	}
	press := func(k tea.KeyPressMsg) bool { return l.Update(k) }
	for range 2 {
		if !press(tea.KeyPressMsg{Code: tea.KeyUp}) {
			t.Fatal("up moves to the lines above")
		}
	}
	typeText(l, "!")
	if l.Value() != "al!pha\nbe\ngamma" {
		t.Fatalf("up keeps the column where the line has it (gamma's end, be's end, then column 2): %q", l.Value())
	}
	if press(tea.KeyPressMsg{Code: tea.KeyUp}) {
		t.Fatal("up on the first line has nowhere to go: the caller gets it")
	}
	press(tea.KeyPressMsg{Code: tea.KeyDown})
	press(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	if l.Value() != "al!pha\n\ngamma" {
		t.Fatalf("ctrl+u cuts the current line only (down went to the end of be): %q", l.Value())
	}
	l.Newline()
	typeText(l, "a long line that wraps")
	rows := l.ViewLines()
	if len(rows) != 3 {
		t.Fatalf("at most MaxRows rows: %q", rows)
	}
	for _, r := range rows {
		if w := ansi.StringWidth(r); w > 12 {
			t.Fatalf("a row is %d wide, more than the width: %q", w, rows)
		}
	}
	if ansi.Strip(rows[0]) != "  a long lin" || strings.TrimSpace(ansi.Strip(rows[2])) != "ps" {
		t.Fatalf("the rows shown are the cursor's: %q", rows)
	}
	l.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	typeText(l, `\`)
	if !l.Continue() || strings.Contains(l.Value(), `\`) || l.Value() != "al!pha\n\na long line that wraps\n\ngamma" {
		t.Fatalf("Continue turns the backslash before the cursor into a break: %q", l.Value())
	}
}
