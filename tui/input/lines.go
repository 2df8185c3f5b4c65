package input

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// defaultRows is how many rows a Multi line draws at most when MaxRows
// is unset: enough to read a pasted paragraph, little enough to leave the
// transcript most of the tab.
const defaultRows = 8

// Newline breaks the line at the cursor (with Multi; nothing otherwise).
func (l *Line) Newline() {
	if l.Multi {
		l.insert("\n")
	}
}

// Continue turns a backslash just before the cursor into a line break
// and reports whether there was one: "\" then enter goes on on the next
// line in any terminal, one that reports no shift+enter included.
func (l *Line) Continue() bool {
	if !l.Multi || l.pos == 0 || l.text[l.pos-1] != '\\' {
		return false
	}
	l.text[l.pos-1] = '\n'
	return true
}

// lineKey is what a key does within the current line of a Multi text
// (home and end, up and down, cutting to either end); it reports false
// for the keys it leaves to the one-line editing, and for up on the first
// line and down on the last, which have nowhere to go.
func (l *Line) lineKey(k string) bool {
	start, end := l.lineStart(l.pos), l.lineEnd(l.pos)
	switch k {
	case "home", "ctrl+a":
		l.pos = start
	case "end", "ctrl+e":
		l.pos = end
	case "ctrl+u":
		l.text = append(l.text[:start], l.text[l.pos:]...)
		l.pos = start
	case "ctrl+k":
		l.text = append(l.text[:l.pos], l.text[end:]...)
	case "up":
		if start == 0 {
			return false
		}
		prev := l.lineStart(start - 1)
		l.pos = min(prev+(l.pos-start), start-1)
	case "down":
		if end == len(l.text) {
			return false
		}
		next := end + 1
		l.pos = min(next+(l.pos-start), l.lineEnd(next))
	default:
		return false
	}
	return true
}

// lineStart is where the line holding position i begins.
func (l *Line) lineStart(i int) int {
	for i > 0 && l.text[i-1] != '\n' {
		i--
	}
	return i
}

// lineEnd is where the line holding position i ends (its line break, or
// the end of the text).
func (l *Line) lineEnd(i int) int {
	for i < len(l.text) && l.text[i] != '\n' {
		i++
	}
	return i
}

// ViewLines draws a Multi text wrapped to the width, the prompt on its
// first row and the rows after it indented under the text, at most
// MaxRows of them around the cursor. A one-line editor's is its View.
func (l *Line) ViewLines() []string {
	if !l.Multi || len(l.text) == 0 {
		l.rowOff = 0
		return []string{l.oneLine()}
	}
	room := max(l.width-ansi.StringWidth(l.Prompt), 1)
	rows, at := l.rows(room)
	limit := l.MaxRows
	if limit <= 0 {
		limit = defaultRows
	}
	l.rowOff = min(l.rowOff, at)
	if at >= l.rowOff+limit {
		l.rowOff = at - limit + 1
	}
	l.rowOff = max(min(l.rowOff, len(rows)-limit), 0)
	indent := strings.Repeat(" ", ansi.StringWidth(l.Prompt))
	var out []string
	for r := l.rowOff; r < len(rows) && r < l.rowOff+limit; r++ {
		head := indent
		if r == 0 {
			head = l.st.Hint.Render(l.Prompt)
		}
		var b strings.Builder
		for _, i := range rows[r] {
			cell := " "
			if i < len(l.text) && l.text[i] != '\n' {
				cell = string(l.text[i])
			}
			switch {
			case i == l.pos && l.focused:
				b.WriteString(cursor(l.st, cell))
			case cell != " " || i < len(l.text) && l.text[i] == ' ':
				b.WriteString(l.st.Base.Render(cell))
			}
		}
		out = append(out, head+b.String())
	}
	return out
}

// rows cuts the text into rows of at most room cells: at each line break
// and where a line is too wide. Each row lists the positions it draws; a
// line break and the end of the text take a cell, where the cursor shows
// on them. at is the row of the cursor.
func (l *Line) rows(room int) (rows [][]int, at int) {
	var cur []int
	used := 0
	for i := 0; i <= len(l.text); i++ {
		cw := 1
		if i < len(l.text) && l.text[i] != '\n' {
			cw = max(ansi.StringWidth(string(l.text[i])), 1)
		}
		if used+cw > room && len(cur) > 0 {
			rows, cur, used = append(rows, cur), nil, 0
		}
		if i == l.pos {
			at = len(rows)
		}
		cur = append(cur, i)
		used += cw
		if i < len(l.text) && l.text[i] == '\n' {
			rows, cur, used = append(rows, cur), nil, 0
		}
	}
	return append(rows, cur), at
}
