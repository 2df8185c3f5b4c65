package editor

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/themes"
)

// goSource returns n lines of Go.
func goSource(n int) string {
	var b strings.Builder
	b.WriteString("package big\n\nimport \"fmt\"\n\n")
	for i := 4; i < n; i += 6 {
		fmt.Fprintf(&b, "// F%d prints its number, and a string with \"quotes\".\nfunc F%d(x int) error {\n\tif x > %d {\n\t\treturn fmt.Errorf(\"too big: %%d\", x)\n\t}\n\treturn nil\n}\n", i, i, i)
	}
	return b.String()
}

// BenchmarkEditorKeystroke100k types one character in the middle of a
// 100,000-line Go file and draws the 200x60 view, colours included: what
// one keystroke costs on the UI loop.
func BenchmarkEditorKeystroke100k(b *testing.B) {
	e := New(themes.Build(themes.Dark(), false), Options{ID: 1, Path: "big.go", Data: []byte(goSource(100_000))})
	e.SetSize(200, 60)
	e.Focus()
	e.GoTo(50_000)
	e.Highlighted(e.Highlight()().(Highlighted))
	key := tea.KeyPressMsg{Code: 'x', Text: "x"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.HandleKey(key)
		if i%64 == 63 { // keep the line from growing without end
			e.Undo()
		}
		if len(e.View()) != 60 {
			b.Fatal("short view")
		}
	}
}

// BenchmarkHighlightViewport colours a 60-line viewport of Go after a
// keystroke changed one of its lines: the Highlighter lexes the changed
// line with its context and takes the rest from its cache. This is the
// work of one Highlight command, off the UI loop.
func BenchmarkHighlightViewport(b *testing.B) {
	e := New(themes.Build(themes.Dark(), false), Options{ID: 1, Path: "big.go", Data: []byte(goSource(10_000))})
	e.SetSize(200, 61)
	e.GoTo(5_000)
	e.Highlighted(e.Highlight()().(Highlighted))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.insert("x", kindType)
		e.Highlighted(e.Highlight()().(Highlighted))
	}
}

// BenchmarkHighlightViewportCold colours a 60-line viewport no line of
// which was seen before (a jump to another part of the file).
func BenchmarkHighlightViewportCold(b *testing.B) {
	e := New(themes.Build(themes.Dark(), false), Options{ID: 1, Path: "big.go", Data: []byte(goSource(10_000))})
	e.SetSize(200, 61)
	e.GoTo(5_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.hl.lighter.Forget()
		e.hl.last = Highlighted{}
		e.Highlighted(e.Highlight()().(Highlighted))
	}
}
