package editor

import (
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

// classes holds, per drawing role, the escape sequences that open and
// close it, taken once from the styles: drawing a row then costs string
// appends, not a style render per piece.
type classes [clCount]struct{ open, close string }

func buildClasses(st themes.Styles) classes {
	var c classes
	set := func(cl class, s lipgloss.Style) {
		r := s.Render("X")
		i := strings.Index(r, "X")
		if i < 0 {
			return
		}
		c[cl].open, c[cl].close = r[:i], r[i+1:]
	}
	set(clPlain, st.SynPlain)
	set(clKeyword, st.SynKeyword)
	set(clString, st.SynString)
	set(clComment, st.SynComment)
	set(clNumber, st.SynNumber)
	set(clFunc, st.SynFunc)
	set(clType, st.SynType)
	set(clOperator, st.SynOperator)
	set(clSelection, st.Selection)
	set(clMatch, st.Match)
	set(clCursor, st.Cursor)
	return c
}

// View returns the inside lines: the text in view with line numbers, then
// the footer (the find or go-to line while open).
func (e *Editor) View() []string {
	if e.h <= 0 || e.w <= 0 {
		return nil
	}
	out := make([]string, 0, e.h)
	gw := e.gutterW()
	var query string
	fold := false
	if e.query != "" {
		query, fold = e.query, smartCase(e.query)
		if fold {
			query = strings.ToLower(query)
		}
	}
	selFrom, selTo, sel := e.Selection()
	var row strings.Builder
	for n := e.top; n < e.top+e.textH(); n++ {
		if n >= e.buf.Len() {
			out = append(out, e.st.LineNumber.Render(strings.Repeat(" ", gw-2)+"~"))
			continue
		}
		num := itoa(n + 1)
		numStyle := e.st.LineNumber
		if n == e.cur.Line {
			numStyle = e.st.LineNumberActive
		}
		row.Reset()
		row.WriteString(numStyle.Render(strings.Repeat(" ", gw-2-len(num)) + num + " "))
		row.WriteByte(' ')
		text := e.buf.Line(n)
		ov := overlay{}
		if sel && n >= selFrom.Line && n <= selTo.Line {
			ov.selFrom, ov.selTo = 0, len(text)+1 // +1: the line break is selected too
			if n == selFrom.Line {
				ov.selFrom = selFrom.Col
			}
			if n == selTo.Line {
				ov.selTo = selTo.Col
			}
		} else {
			ov.selFrom, ov.selTo = -1, -1
		}
		ov.cursor = -1
		if n == e.cur.Line && e.focused && e.mode == modeEdit {
			ov.cursor = e.cur.Col
		}
		if query != "" {
			ov.matches = indexIn(text, query, fold)
			ov.matchLen = len(query)
		}
		e.drawLine(&row, text, e.spansOf(n, text), ov)
		out = append(out, row.String())
	}
	return append(out, e.footer())
}

// overlay is what is drawn over a line's syntax colours.
type overlay struct {
	selFrom, selTo int // selected bytes [selFrom, selTo), -1 for none
	cursor         int // the cursor's byte, -1 when not on this line
	matches        []int
	matchLen       int
}

func (o *overlay) classAt(i int, syntax class) class {
	switch {
	case i == o.cursor:
		return clCursor
	case i >= o.selFrom && i < o.selTo:
		return clSelection
	}
	for _, m := range o.matches {
		if i >= m && i < m+o.matchLen {
			return clMatch
		}
		if m > i {
			break
		}
	}
	return syntax
}

// drawLine writes the visible part of one line: columns [left,
// left+width) with tabs expanded, grouped into runs of one class.
func (e *Editor) drawLine(sb *strings.Builder, text string, spans []Span, ov overlay) {
	w := e.textW()
	col, shown := 0, 0
	cur := class(255)
	si := 0
	flush := func() {
		if cur != 255 {
			sb.WriteString(e.cls[cur].close)
		}
	}
	put := func(cl class, s string, width int) {
		if cl != cur {
			flush()
			sb.WriteString(e.cls[cl].open)
			cur = cl
		}
		sb.WriteString(s)
		shown += width
	}
	for i := 0; i <= len(text) && shown < w; {
		r, size := utf8.RuneError, 1
		if i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		for si < len(spans) && spans[si].End <= i {
			si++
		}
		syn := clPlain
		if si < len(spans) && spans[si].Start <= i {
			syn = class(spans[si].Role)
		}
		cl := ov.classAt(i, syn)
		if i == len(text) { // past the end: the cursor or a selected line break
			if (cl == clCursor || cl == clSelection) && col >= e.left {
				put(cl, " ", 1)
			}
			break
		}
		rw := e.runeWidth(r, col)
		switch {
		case col+rw <= e.left:
		case col < e.left: // a wide rune or tab cut by the left edge
			put(cl, strings.Repeat(" ", min(col+rw-e.left, w-shown)), min(col+rw-e.left, w-shown))
		case r == '\t':
			n := min(rw, w-shown)
			put(cl, strings.Repeat(" ", n), n)
		case shown+rw > w:
			put(cl, strings.Repeat(" ", w-shown), w-shown)
		case r < 0x20 || r == 0x7f:
			put(cl, "·", 1)
		default:
			put(cl, text[i:i+size], rw)
		}
		col += rw
		i += size
	}
	flush()
}

// footer is the bottom row: the find or go-to line, or where the cursor
// is, the file's state and the last message.
func (e *Editor) footer() string {
	if e.mode != modeEdit {
		return e.line.View()
	}
	parts := []string{e.path, "line " + itoa(e.cur.Line+1) + "/" + itoa(e.buf.Len()) + ", col " + itoa(e.visualCol(e.cur)+1)}
	if e.hl.lexer != nil {
		parts = append(parts, e.hl.lexer.Config().Name)
	}
	if e.crlf {
		parts = append(parts, "CRLF")
	}
	left := e.st.Subtle.Render(strings.Join(parts, " · "))
	if e.Dirty() {
		left += e.st.Warning.Render(" · modified")
	}
	if e.message != "" {
		left += e.st.Subtle.Render(" · ") + e.st.Accent.Render(e.message)
	}
	return ansi.Truncate(left, e.w, "…")
}
