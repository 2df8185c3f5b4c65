package markdown

import (
	"fmt"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/themes"
)

// longAnswer is an answer of at least n source lines: sections with a
// heading, prose with inline marks, a nested list, a Go block and a table.
func longAnswer(n int) string {
	var b strings.Builder
	for i := 0; strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, "## Section %d\n\nThe change touches **%d files**; `go test ./...` passes and the [report](https://example.com/r/%d) "+
			"says why, in words long enough to wrap at the width of a pane.\nA second line, *kept* as a break.\n\n", i, i, i)
		fmt.Fprintf(&b, "- first item with ~~old~~ new text\n- second item\n  - nested item %d\n\n", i)
		fmt.Fprintf(&b, "```go\nfunc step%d(x int) int {\n\t// double it\n\treturn x * %d\n}\n```\n\n", i, i)
		fmt.Fprintf(&b, "| name | value |\n|---|--:|\n| step%d | %d |\n\n", i, i)
	}
	return b.String()
}

// BenchmarkMarkdownStream appends one streamed delta to a 2,000-line
// answer and draws it: the cost of a delta is the open tail's, not the
// answer's. prose streams paragraphs (each closed by the next); code
// streams code blocks of 20 lines; one-long-fence streams one code block
// that grows to 666 lines, all of it the open tail. The answer goes back
// to 2,000 lines every 2,000 deltas, off the clock.
func BenchmarkMarkdownStream(b *testing.B) {
	base := longAnswer(2000)
	r := NewRenderer(themes.Build(themes.Dark(), false))
	for _, c := range []struct {
		name  string
		delta func(i int) string
	}{
		{"prose", func(i int) string {
			if i%40 == 39 {
				return "end.\n\n"
			}
			return "word " + []string{"*a* ", "`b` ", "c "}[i%3]
		}},
		{"code", func(i int) string {
			switch {
			case i%60 == 0:
				return "```go\n"
			case i%60 == 59:
				return "x)\n```\n\n"
			case i%3 == 2:
				return "x)\n"
			}
			return "\tcall(" + []string{"a, ", "\"s\", "}[i%2]
		}},
		{"one-long-fence", func(i int) string {
			switch {
			case i == 0:
				return "```go\n"
			case i%3 == 2:
				return "x)\n"
			}
			return "\tcall(" + []string{"a, ", "\"s\", "}[i%2]
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var d Doc
			src := base
			drawn := len(d.Lines(r, src, 100))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i > 0 && i%2000 == 0 {
					b.StopTimer()
					d, src = Doc{}, base
					d.Lines(r, src, 100)
					b.StartTimer()
				}
				src += c.delta(i % 2000)
				if len(d.Lines(r, src, 100)) < drawn {
					b.Fatal("short drawing")
				}
			}
		})
	}
}

// BenchmarkMarkdownWhole draws the same 2,000-line answer from nothing,
// with a new Renderer each time so no code line comes from the lexer's
// cache either: what each delta would cost without caches.
func BenchmarkMarkdownWhole(b *testing.B) {
	src := longAnswer(2000)
	st := themes.Build(themes.Dark(), false)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		NewRenderer(st).Render(src, 100)
	}
}
