package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

func strip(lines []string) string { return ansi.Strip(strings.Join(lines, "\n")) }

func TestBlockStarts(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []int
	}{
		{"one block", "a\nb\n", nil},
		{"blank line splits", "a\n\nb", []int{3}},
		{"several blanks", "a\n\n\n  \nb", []int{7}},
		{"indented goes on", "- a\n\n  more", nil},
		{"fence keeps its blanks", "```\na\n\nb\n```\n\nc", []int{14}},
		{"unclosed fence keeps all", "```go\na\n\nb", nil},
		{"tilde fence", "~~~\n\n```\n~~~\n\nx", []int{14}},
		{"longer closing fence", "````\n```\n\nx\n`````\n\ny", []int{19}},
		{"a line not yet begun", "a\n\n  ", nil},
		{"fence at the margin ends a paragraph", "Fix:\n```go\nx\n```\ny", []int{5, 17}},
		{"a fence line not yet whole", "Fix:\n```go", nil},
		{"indented fence stays in its item", "- a\n  ```\n  x\n  ```\nb", nil},
		{"indented after a fence goes on", "```\nx\n```\n  y", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := blockStarts(c.src, 0)
			if len(got) != len(c.want) {
				t.Fatalf("starts %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("starts %v, want %v", got, c.want)
				}
			}
		})
	}
}

// stream feeds src to a Doc in pieces of n bytes, drawing after each.
func stream(d *Doc, r *Renderer, src string, n, width int) []string {
	var lines []string
	for i := n; ; i += n {
		lines = d.Lines(r, src[:min(i, len(src))], width)
		if i >= len(src) {
			return lines
		}
	}
}

func TestStreamedDrawsAsWhole(t *testing.T) {
	src := "# Plan\n\nFirst *this*, then that.\n\n- one\n- two\n\n  more of two\n\n```go\nfunc f() {\n\n\treturn\n}\n```\n\n> done\n"
	r := plainRenderer()
	want := strip(r.Render(src, 30))
	for _, n := range []int{1, 2, 7} {
		var d Doc
		if got := strip(stream(&d, r, src, n, 30)); got != want {
			t.Errorf("streamed %d bytes at a time:\n%s\nwhole:\n%s", n, got, want)
		}
	}
}

func TestClosedBlocksDrawOnce(t *testing.T) {
	r := plainRenderer()
	var d Doc
	src := "# Title\n\nA paragraph.\n\n```go\nfunc f() {"
	d.Lines(r, src, 40)
	if d.Renders() != 3 {
		t.Fatalf("first drawing: %d blocks drawn, want 3", d.Renders())
	}
	src += "\n\treturn"
	out := d.Lines(r, src, 40)
	if d.Renders() != 4 {
		t.Fatalf("a delta in the open fence drew %d blocks, want 1 (the tail)", d.Renders()-3)
	}
	if got := strip(out); !strings.Contains(got, "│     return") || !strings.HasPrefix(got, "# Title") {
		t.Fatalf("drawing:\n%s", got)
	}
	src += "\n}\n```\n"
	d.Lines(r, src, 40)
	before := d.Renders()
	src += "\nAfter."
	d.Lines(r, src, 40)
	if got := d.Renders() - before; got != 1 {
		t.Fatalf("closing the tail drew %d blocks, want 1 (the new tail; the closed one keeps its drawing)", got)
	}
	d.Lines(r, src, 40)
	if d.Renders() != before+1 {
		t.Fatal("drawing the same source again drew something")
	}
	before = d.Renders()
	d.Lines(r, src, 30)
	if got := d.Renders() - before; got != 4 {
		t.Fatalf("a new width drew %d blocks, want all 4", got)
	}
	before = d.Renders()
	d.Lines(NewRenderer(themes.Build(themes.Light(), false)), src, 30)
	if got := d.Renders() - before; got != 4 {
		t.Fatalf("a new theme drew %d blocks, want all 4", got)
	}
}

func TestReplacedSourceSplitsAgain(t *testing.T) {
	r := plainRenderer()
	var d Doc
	d.Lines(r, "a\n\nb\n\nc", 20)
	if got := strip(d.Lines(r, "x\n\ny", 20)); got != "x\n\ny" {
		t.Fatalf("a source that does not extend the last one drew:\n%s", got)
	}
}

func TestOpenFenceDrawsAsTheParserWould(t *testing.T) {
	code := "Here is the fix:\n```go\nfunc f(x int) int {\n\t// twice\n\treturn x * 2\n}\n\nvar s = \"a long string that is cut at the width\"\n"
	st := themes.Build(themes.Dark(), false)
	for _, n := range []int{1, 5, 64} {
		var d Doc
		streamed := strings.Join(stream(&d, NewRenderer(st), code, n, 30), "\n")
		whole := strings.Join(NewRenderer(st).block(code, 30), "\n")
		if streamed != whole {
			t.Errorf("streamed %d bytes at a time:\n%q\nparsed whole:\n%q", n, streamed, whole)
		}
	}
}

func TestOpenFenceDrawsOnlyItsNewLines(t *testing.T) {
	r := plainRenderer()
	var d Doc
	src := "```go\n" + strings.Repeat("x := 1\n", 500)
	d.Lines(r, src, 40)
	if len(d.fence.lines) != 500 {
		t.Fatalf("the open fence keeps %d drawn lines, want 500", len(d.fence.lines))
	}
	kept := &d.fence.lines[0]
	src += "y :"
	if got := strip(d.Lines(r, src, 40)); !strings.HasSuffix(got, "│ x := 1\n│ y :") {
		t.Fatalf("the streaming line should end the drawing:\n%s", got[len(got)-40:])
	}
	if &d.fence.lines[0] != kept {
		t.Fatal("a delta on the streaming line drew the fence's whole lines again")
	}
	src += "= 2\n```\n"
	if got := strip(d.Lines(r, src, 40)); strings.Contains(got, "```") || !strings.HasSuffix(got, "│ y := 2") {
		t.Fatalf("the closed fence should draw as a code block:\n%s", got[len(got)-40:])
	}
}
