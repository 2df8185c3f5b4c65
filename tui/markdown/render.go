package markdown

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"

	"github.com/atelier-studio/atelier/tui/syntax"
)

// writer draws one parsed block's nodes into lines.
type writer struct {
	lk      *looks
	lighter func(lang string) *syntax.Highlighter
	cols    int // no line is wider
	src     []byte
	out     []string
	depth   int // how many lists deep, for the bullet
	b       strings.Builder
}

// The marks: a code block's bar, a quote's (heavier, so the two stay
// apart without colour), and the bullets of nested lists.
var (
	bar      = piece{text: "│ ", look: look{role: roleMark}, w: 2}
	quoteBar = piece{text: "┃ ", look: look{role: roleMark}, w: 2}
	bullets  = []string{"•", "◦", "▪"}
)

// emit draws one line: a prefix, then content. Trailing spaces go, so a
// blank line inside a list is empty.
func (w *writer) emit(pre, content []piece) {
	w.b.Reset()
	if len(content) == 0 {
		pre = bare(pre)
	}
	draw(&w.b, pre, w.lk)
	draw(&w.b, content, w.lk)
	l := w.b.String()
	if piecesWidth(pre)+piecesWidth(content) > w.cols {
		// Only a width too narrow for the marks of a deep list or quote
		// gets here.
		l = ansi.Truncate(l, w.cols, "")
	}
	w.out = append(w.out, l)
}

// bare is a prefix without its trailing spaces (an indent drops away,
// a quote's bar stays).
func bare(pre []piece) []piece {
	for len(pre) > 0 {
		last := pre[len(pre)-1]
		t := strings.TrimRight(last.text, " ")
		if t != "" {
			out := append(pre[:len(pre)-1:len(pre)-1], piece{text: t, look: last.look, w: width(t)})
			return out
		}
		pre = pre[:len(pre)-1]
	}
	return nil
}

// with returns a prefix extended by more pieces, never sharing memory
// with the one it extends.
func with(pre []piece, more ...piece) []piece {
	out := make([]piece, 0, len(pre)+len(more))
	return append(append(out, pre...), more...)
}

// container draws a node's block children: blank lines between them
// unless tight (the inside of a tight list item).
func (w *writer) container(n ast.Node, cols int, first, rest []piece, tight bool) {
	pre := first
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() && !tight {
			w.emit(rest, nil)
		}
		w.block(c, cols, pre, rest)
		pre = rest
	}
}

// lines draws wrapped runs, the first line after first, the others after
// rest (both of one width).
func (w *writer) lines(runs []run, cols int, first, rest []piece) {
	pre := first
	for _, l := range wrap(runs, cols-piecesWidth(first)) {
		w.emit(pre, l)
		pre = rest
	}
}

// block draws one block node.
func (w *writer) block(n ast.Node, cols int, first, rest []piece) {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		w.lines(w.inlines(n, look{}, nil), cols, first, rest)
	case *ast.Heading:
		h := look{role: roleHeading}
		runs := []run{{text: strings.Repeat("#", n.Level) + " ", look: h}}
		w.lines(w.inlines(n, h, runs), cols, first, rest)
	case *ast.ThematicBreak:
		w.emit(first, []piece{{text: strings.Repeat("─", max(cols-piecesWidth(first), 1)), look: look{role: roleMark}}})
	case *ast.FencedCodeBlock:
		w.code(n, string(n.Language(w.src)), cols, first, rest)
	case *ast.CodeBlock:
		w.code(n, "", cols, first, rest)
	case *ast.Blockquote:
		w.container(n, cols, with(first, quoteBar), with(rest, quoteBar), false)
	case *ast.List:
		w.list(n, cols, first, rest)
	case *east.Table:
		w.table(n, cols, first, rest)
	default:
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			// HTML blocks and whatever else has lines: as written.
			w.lines([]run{{text: w.raw(n), look: look{}}}, cols, first, rest)
			return
		}
		w.container(n, cols, first, rest, false)
	}
}

// raw is a block's source lines as they are.
func (w *writer) raw(n ast.Node) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(w.src))
	}
	return strings.TrimRight(b.String(), "\n")
}

// list draws a list's items, each after its marker: a bullet by depth or
// the item's number, the numbers right-aligned.
func (w *writer) list(n *ast.List, cols int, first, rest []piece) {
	w.depth++
	defer func() { w.depth-- }()
	count := n.ChildCount()
	numW := len(strconv.Itoa(n.Start + count - 1))
	pre := first
	i := 0
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		if i > 0 && !n.IsTight {
			w.emit(rest, nil)
		}
		var m string
		if n.IsOrdered() {
			num := strconv.Itoa(n.Start + i)
			m = strings.Repeat(" ", numW-len(num)) + num + string(n.Marker) + " "
		} else {
			m = bullets[(w.depth-1)%len(bullets)] + " "
		}
		mark := piece{text: m, look: look{role: roleMark}, w: width(m)}
		in := with(rest, piece{text: strings.Repeat(" ", mark.w), w: mark.w})
		if item.FirstChild() == nil {
			w.emit(with(pre, mark), nil)
		} else {
			w.container(item, cols, with(pre, mark), in, n.IsTight)
		}
		pre = rest
		i++
	}
}
