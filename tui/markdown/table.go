package markdown

import (
	"strings"

	east "github.com/yuin/goldmark/extension/ast"
)

// table draws a table in columns when it fits the width, the header bold
// over a rule; a table too wide draws each row as one wrapped line of
// cells between bars, which stays readable at any width.
func (w *writer) table(n *east.Table, cols int, first, rest []piece) {
	var rows [][][]run
	var header []bool
	for r := n.FirstChild(); r != nil; r = r.NextSibling() {
		_, isHead := r.(*east.TableHeader)
		base := look{}
		if isHead {
			base.attr = attrBold
		}
		var cells [][]run
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, oneLine(w.inlines(c, base, nil)))
		}
		rows = append(rows, cells)
		header = append(header, isHead)
	}
	ncol := len(n.Alignments)
	colW := make([]int, ncol)
	for _, cells := range rows {
		for i, c := range cells {
			if i < ncol {
				colW[i] = max(colW[i], runsWidth(c))
			}
		}
	}
	total := 3 * max(ncol-1, 0)
	for _, cw := range colW {
		total += cw
	}
	sep := run{text: " │ ", look: look{role: roleMark}}
	if total > cols-piecesWidth(first) {
		pre := first
		for _, cells := range rows {
			var line []run
			for i, c := range cells {
				if i > 0 {
					line = append(line, sep)
				}
				line = append(line, c...)
			}
			w.lines(line, cols, pre, rest)
			pre = rest
		}
		return
	}
	pre := first
	for ri, cells := range rows {
		var line []piece
		for i := range ncol {
			if i > 0 {
				line = append(line, piece{text: sep.text, look: sep.look, w: 3})
			}
			var c []run
			if i < len(cells) {
				c = cells[i]
			}
			line = append(line, pad(c, colW[i], n.Alignments[i])...)
		}
		w.emit(pre, trimEnd(line))
		pre = rest
		if header[ri] {
			var rule []piece
			for i, cw := range colW {
				if i > 0 {
					rule = append(rule, piece{text: "─┼─", look: look{role: roleMark}, w: 3})
				}
				rule = append(rule, piece{text: strings.Repeat("─", cw), look: look{role: roleMark}, w: cw})
			}
			w.emit(pre, rule)
		}
	}
}

// oneLine keeps a cell on one line.
func oneLine(runs []run) []run {
	for i := range runs {
		runs[i].text = strings.ReplaceAll(runs[i].text, "\n", " ")
	}
	return runs
}

func runsWidth(runs []run) int {
	n := 0
	for _, r := range runs {
		n += width(r.text)
	}
	return n
}

// pad lays a cell out in cw cells by its column's alignment.
func pad(c []run, cw int, a east.Alignment) []piece {
	gap := cw - runsWidth(c)
	left := 0
	switch a {
	case east.AlignRight:
		left = gap
	case east.AlignCenter:
		left = gap / 2
	}
	out := []piece{{text: strings.Repeat(" ", left), w: left}}
	for _, r := range c {
		out = append(out, piece{text: r.text, look: r.look, w: width(r.text)})
	}
	return append(out, piece{text: strings.Repeat(" ", gap-left), w: gap - left})
}

// trimEnd drops the spaces that end a line.
func trimEnd(ps []piece) []piece {
	for len(ps) > 0 {
		last := ps[len(ps)-1]
		t := strings.TrimRight(last.text, " ")
		if t != "" {
			ps[len(ps)-1] = piece{text: t, look: last.look, w: width(t)}
			return ps
		}
		ps = ps[:len(ps)-1]
	}
	return ps
}
