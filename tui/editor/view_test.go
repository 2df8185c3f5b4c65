package editor

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/internal/golden"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/syntax"
)

const sample = `package main

import "fmt"

// main greets, with a line long enough that the view has to cut it at the right edge.
func main() {
	name := "world"
	for i := 0; i < 3; i++ {
		fmt.Println("hello", name, i)
	}
}
`

func plainView(e *Editor) string { return ansi.Strip(strings.Join(e.View(), "\n")) }

func checkWidth(t *testing.T, lines []string, w int) {
	t.Helper()
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d wide, over %d: %q", i, n, w, ansi.Strip(l))
		}
	}
}

func TestGoldenEditor(t *testing.T) {
	e := newEditor(t, "main.go", sample)
	do(e, "down", "down", "down", "down", "down", "down", "ctrl+right", "shift+ctrl+right")
	e.Highlighted(e.Highlight()().(Highlighted))
	checkWidth(t, e.View(), 60)
	golden.Check(t, "editor-60x12.txt", plainView(e))

	e.SetSize(40, 8)
	do(e, "ctrl+end", "type:// done")
	checkWidth(t, e.View(), 40)
	golden.Check(t, "editor-40x8-modified.txt", plainView(e))
}

func TestHighlightOffTheLoop(t *testing.T) {
	e := New(themes.Build(themes.Dark(), false), Options{ID: 7, Path: "main.go", Data: []byte(sample)})
	e.SetSize(60, 12)
	kw := e.cls[clKeyword].open
	if kw == "" {
		t.Fatal("the keyword style has no escape sequence")
	}
	if strings.Contains(strings.Join(e.View(), "\n"), kw+"package") {
		t.Fatal("coloured before the highlight answered")
	}
	cmd := e.Highlight()
	if cmd == nil {
		t.Fatal("no highlight command")
	}
	if e.Highlight() != nil {
		t.Fatal("a second command while one is out")
	}
	h := cmd().(Highlighted)
	if h.ID != 7 {
		t.Fatalf("answer for editor %d", h.ID)
	}
	if next := e.Highlighted(h); next != nil {
		t.Fatal("a fresh answer for the view needs no other")
	}
	view := strings.Join(e.View(), "\n")
	if !strings.Contains(view, kw+"package") || !strings.Contains(view, kw+"func") {
		t.Fatalf("keywords not coloured: %q", view)
	}
	// An edit on line 7 leaves the other lines coloured and asks again.
	e.GoTo(7)
	e.insert("x", kindType)
	if !strings.Contains(strings.Join(e.View(), "\n"), kw+"func") {
		t.Fatal("unchanged lines lost their colours after an edit")
	}
	if e.Highlight() == nil {
		t.Fatal("an edit should ask for colours again")
	}
	if New(themes.Build(themes.Dark(), false), Options{Path: "notes.unknownext", Data: []byte("x")}).Highlight() != nil {
		t.Fatal("a file without syntax should not be lexed")
	}
}

func TestBlockCommentLexedAcrossLines(t *testing.T) {
	lines := []string{"/*", "inside the comment", "*/", "var x = 1"}
	spans := syntax.Lex(syntax.ForFile("a.go"), lines)
	if len(spans[1]) == 0 || spans[1][0].Role != syntax.Comment {
		t.Fatalf("a line inside a block comment: %+v", spans[1])
	}
	if len(spans[3]) == 0 || spans[3][0].Role != syntax.Keyword {
		t.Fatalf("the line after it: %+v", spans[3])
	}
}
