package frame

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestBoxHasExactSize(t *testing.T) {
	cases := map[string]Box{
		"plain":      {Title: "Sessions", Width: 20, Height: 5, ContentRows: []string{"a", "b"}},
		"overflow":   {Title: "Files", Width: 12, Height: 4, ContentRows: []string{"a very long line indeed", "2", "3", "4", "5"}},
		"long title": {Title: "A title far too long for the box", Right: "3/4", Width: 10, Height: 3},
		"wide runes": {Title: "界", Width: 8, Height: 3, ContentRows: []string{"日本語のテキスト"}},
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			b.Border = lipgloss.NewStyle()
			lines := strings.Split(b.Render(), "\n")
			if len(lines) != b.Height {
				t.Fatalf("%d lines, want %d", len(lines), b.Height)
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w != b.Width {
					t.Errorf("line %d %q is %d wide, want %d", i, l, w, b.Width)
				}
			}
		})
	}
}

func TestBoxShowsTitleAndRight(t *testing.T) {
	top := strings.Split(Box{Title: "Files", Right: "2", Width: 20, Height: 3}.Render(), "\n")[0]
	if !strings.Contains(top, "Files") || !strings.Contains(top, " 2 ") {
		t.Fatalf("top %q", top)
	}
}

func TestOverlay(t *testing.T) {
	base := "aaaaaaaa\nbbbbbbbb\ncccccccc"
	got := ansi.Strip(Overlay(base, "XY\nZW", 3, 1))
	if got != "aaaaaaaa\nbbbXYbbb\ncccZWccc" {
		t.Fatalf("overlay:\n%s", got)
	}
}

// TestJoinMatchesLipgloss: joining styled boxes of several heights gives
// what lipgloss's measured join gives, line for line.
func TestJoinMatchesLipgloss(t *testing.T) {
	st := lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	a := Box{Title: st.Render("left"), Border: st, Width: 12, Height: 6, ContentRows: []string{"é wide ✓", st.Render("x")}}.Render()
	b := Box{Title: "centre", Border: st, Width: 20, Height: 6, ContentRows: []string{"日本語 text that goes past the edge"}}.Render()
	c := Stack(Box{Width: 9, Height: 3}.Render(), Box{Width: 9, Height: 2}.Render())
	short := Box{Width: 7, Height: 4, ContentRows: []string{"short"}}.Render()
	for _, blocks := range [][]string{{a, b, c}, {a, short, b}, {short}} {
		got, want := Join(blocks...), lipgloss.JoinHorizontal(lipgloss.Top, blocks...)
		if got != want {
			t.Errorf("Join:\n%s\nwant:\n%s", got, want)
		}
	}
}

// TestPaintRestylesOnlyTheSpan: the painted cells keep their text in the
// new style; the cells on either side keep theirs, wide runes included.
func TestPaintRestylesOnlyTheSpan(t *testing.T) {
	bold := lipgloss.NewStyle().Bold(true)
	line := bold.Render("ab") + "界cd"
	got := Paint(line, 1, 4, lipgloss.NewStyle().Reverse(true))
	if ansi.Strip(got) != "ab界cd" || ansi.StringWidth(got) != ansi.StringWidth(line) {
		t.Fatalf("painted %q: text or width changed", got)
	}
	if !strings.Contains(got, "\x1b[7mb界\x1b[m") {
		t.Errorf("the span should be reversed: %q", got)
	}
	if !strings.HasPrefix(got, "\x1b[1ma") {
		t.Errorf("the cell before keeps its style: %q", got)
	}
	if Paint(line, 3, 3, bold) != line || Paint(line, 9, 12, bold) != line {
		t.Error("an empty or outside span changes nothing")
	}
}
