package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

// inlines appends the runs of a node's inline children, drawn in base
// (the look of the block they are in, plus the emphasis around them).
func (w *writer) inlines(n ast.Node, base look, runs []run) []run {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		runs = w.inline(c, base, runs)
	}
	return runs
}

func (w *writer) inline(n ast.Node, base look, runs []run) []run {
	switch n := n.(type) {
	case *ast.Text:
		runs = append(runs, run{text: prose(n.Value(w.src)), look: base})
		if n.SoftLineBreak() || n.HardLineBreak() {
			runs = append(runs, run{text: "\n", look: base})
		}
		return runs
	case *ast.String:
		v := string(n.Value)
		if !n.IsCode() {
			v = prose(n.Value)
		}
		return append(runs, run{text: v, look: base})
	case *ast.CodeSpan:
		return append(runs, run{text: w.code1(n), look: look{role: roleCode, attr: base.attr}})
	case *ast.Emphasis:
		base.attr |= attrItalic
		if n.Level >= 2 {
			base.attr = base.attr&^attrItalic | attrBold
		}
		return w.inlines(n, base, runs)
	case *east.Strikethrough:
		base.attr |= attrStrike
		return w.inlines(n, base, runs)
	case *ast.Link:
		return w.link(n, string(n.Destination), "", base, runs)
	case *ast.Image:
		return w.link(n, string(n.Destination), "image: ", base, runs)
	case *ast.AutoLink:
		return append(runs, run{text: string(n.Label(w.src)), look: look{role: roleLink, attr: base.attr}})
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(w.src))
		}
		return append(runs, run{text: b.String(), look: base})
	case *east.TaskCheckBox:
		box := "[ ] "
		if n.IsChecked {
			box = "[x] "
		}
		return append(runs, run{text: box, look: look{role: roleMark}})
	}
	return w.inlines(n, base, runs)
}

// link draws a link's text, then its address when the text does not
// already say it: a terminal cannot show it on hover.
func (w *writer) link(n ast.Node, dest, label string, base look, runs []run) []run {
	l := look{role: roleLink, attr: base.attr}
	start := len(runs)
	if label != "" {
		runs = append(runs, run{text: label, look: l})
	}
	runs = w.inlines(n, l, runs)
	var said strings.Builder
	for _, r := range runs[start:] {
		said.WriteString(r.text)
	}
	if dest != "" && dest != said.String() && "mailto:"+said.String() != dest {
		runs = append(runs, run{text: " ", look: base}, run{text: dest, look: look{role: roleURL}})
	}
	return runs
}

// code1 is a code span's text: as written, line breaks as spaces.
func (w *writer) code1(n *ast.CodeSpan) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Value(w.src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
	}
	return b.String()
}

// prose resolves what prose source escapes: backslashes before
// punctuation and character references.
func prose(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	v = util.UnescapePunctuations(v)
	v = util.ResolveNumericReferences(v)
	v = util.ResolveEntityNames(v)
	return string(v)
}
