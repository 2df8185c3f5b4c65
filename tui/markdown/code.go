package markdown

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/atelier-studio/atelier/tui/syntax"
)

// code draws a code block behind a bar, coloured when its language has a
// lexer, each long line cut (not wrapped at spaces: code keeps its
// indentation). An unclosed fence is drawn as the code it has so far.
func (w *writer) code(n ast.Node, lang string, cols int, first, rest []piece) {
	segs := n.Lines()
	lines := make([]string, segs.Len())
	whole := len(lines) // lines that have their line break
	for i := range lines {
		seg := segs.At(i)
		v := string(seg.Value(w.src))
		if seg.Stop >= len(w.src) && !bytes.HasSuffix(w.src, []byte("\n")) {
			whole = i // the source ends inside this line
		}
		lines[i] = codeText(v)
	}
	var spans [][]syntax.Span
	if name, _, _ := strings.Cut(strings.TrimSpace(lang), " "); name != "" {
		if h := w.lighter(name); h != nil {
			// The line being streamed, the last of an unclosed fence, stays
			// plain until its break: lexing is dear (most of a millisecond
			// for a few lines of Go), and a whole line is lexed only once.
			spans = h.Lines(lines[:whole], true)
		}
	}
	first, rest = with(first, bar), with(rest, bar)
	if len(lines) == 0 {
		w.emit(first, nil)
		return
	}
	for i, l := range lines {
		var sp []syntax.Span
		if i < len(spans) {
			sp = spans[i]
		}
		pre := rest
		if i == 0 {
			pre = first
		}
		w.codeLine(l, sp, pre, rest)
	}
}

// codeLine draws one line of code, cut into lines of the width left
// after the prefix.
func (w *writer) codeLine(l string, spans []syntax.Span, first, rest []piece) {
	cw := max(w.cols-piecesWidth(rest), 1)
	pre := first
	for _, part := range breakHard(codePieces(l, spans), cw, cw) {
		w.emit(pre, part)
		pre = rest
	}
}

// codeText is a line of code as drawn: tabs as four spaces, no line end.
func codeText(v string) string {
	return strings.ReplaceAll(strings.TrimRight(v, "\r\n"), "\t", "    ")
}

// codePieces turns a line and its spans into pieces, the gaps plain.
func codePieces(l string, spans []syntax.Span) []piece {
	plain := look{role: roleSyntax + role(syntax.Plain)}
	var out []piece
	add := func(s string, lk look) {
		if s != "" {
			out = append(out, piece{text: s, look: lk, w: width(s)})
		}
	}
	at := 0
	for _, s := range spans {
		if s.Start < at || s.End > len(l) {
			continue
		}
		add(l[at:s.Start], plain)
		add(l[s.Start:s.End], look{role: roleSyntax + role(s.Role)})
		at = s.End
	}
	add(l[at:], plain)
	return out
}
