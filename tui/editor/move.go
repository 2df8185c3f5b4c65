package editor

import (
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// visualCol is the screen column of p on its line, tabs expanded.
func (e *Editor) visualCol(p Pos) int {
	l := e.buf.Line(p.Line)
	col := 0
	for i, r := range l {
		if i >= p.Col {
			break
		}
		col += e.runeWidth(r, col)
	}
	return col
}

// colAt is the byte offset on line n closest to visual column want.
func (e *Editor) colAt(n, want int) int {
	l := e.buf.Line(n)
	col := 0
	for i, r := range l {
		w := e.runeWidth(r, col)
		if col+w > want {
			return i
		}
		col += w
	}
	return len(l)
}

func (e *Editor) runeWidth(r rune, col int) int {
	switch {
	case r == '\t':
		return e.tabWidth - col%e.tabWidth
	case r < 0x80:
		return 1
	}
	return max(ansi.StringWidth(string(r)), 1)
}

// left returns the position one character before p (the end of the
// previous line at a line's start).
func (e *Editor) leftOf(p Pos) Pos {
	if p.Col == 0 {
		if p.Line == 0 {
			return p
		}
		return Pos{p.Line - 1, len(e.buf.Line(p.Line - 1))}
	}
	_, n := utf8.DecodeLastRuneInString(e.buf.Line(p.Line)[:p.Col])
	return Pos{p.Line, p.Col - n}
}

// rightOf returns the position one character after p.
func (e *Editor) rightOf(p Pos) Pos {
	l := e.buf.Line(p.Line)
	if p.Col >= len(l) {
		if p.Line == e.buf.Len()-1 {
			return p
		}
		return Pos{p.Line + 1, 0}
	}
	_, n := utf8.DecodeRuneInString(l[p.Col:])
	return Pos{p.Line, p.Col + n}
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordLeft returns the start of the word before p.
func (e *Editor) wordLeft(p Pos) Pos {
	if p.Col == 0 {
		return e.leftOf(p)
	}
	l := e.buf.Line(p.Line)
	i := p.Col
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(l[:i])
		if isWord(r) {
			break
		}
		i -= n
	}
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(l[:i])
		if !isWord(r) {
			break
		}
		i -= n
	}
	return Pos{p.Line, i}
}

// wordRight returns the end of the word after p.
func (e *Editor) wordRight(p Pos) Pos {
	l := e.buf.Line(p.Line)
	if p.Col >= len(l) {
		return e.rightOf(p)
	}
	i := p.Col
	for i < len(l) {
		r, n := utf8.DecodeRuneInString(l[i:])
		if isWord(r) {
			break
		}
		i += n
	}
	for i < len(l) {
		r, n := utf8.DecodeRuneInString(l[i:])
		if !isWord(r) {
			break
		}
		i += n
	}
	return Pos{p.Line, i}
}

// home returns the first non-blank of the line, or its start when p is
// already there.
func (e *Editor) home(p Pos) Pos {
	l := e.buf.Line(p.Line)
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if p.Col == i {
		return Pos{p.Line, 0}
	}
	return Pos{p.Line, i}
}

// moveTo puts the cursor at p, extending the selection when selecting
// and dropping it otherwise. keepWant leaves the aimed-at column (for up
// and down).
func (e *Editor) moveTo(p Pos, selecting, keepWant bool) {
	if selecting {
		if e.anchor == nil {
			a := e.cur
			e.anchor = &a
		}
	} else {
		e.anchor = nil
	}
	e.cur = e.buf.Clamp(p)
	if !keepWant {
		e.want = e.visualCol(e.cur)
	}
	e.scrollToCursor()
}

// vertical moves the cursor n lines, aiming at the remembered column.
func (e *Editor) vertical(n int, selecting bool) {
	line := min(max(e.cur.Line+n, 0), e.buf.Len()-1)
	e.moveTo(Pos{line, e.colAt(line, e.want)}, selecting, true)
}

// GoTo moves the cursor to a line (from 1), centring it.
func (e *Editor) GoTo(line int) {
	e.moveTo(Pos{line - 1, 0}, false, false)
	e.top = max(e.cur.Line-e.textH()/2, 0)
}

// textH is the number of text rows (the last row is the footer).
func (e *Editor) textH() int { return max(e.h-1, 1) }

// textW is the width of the text, right of the line numbers.
func (e *Editor) textW() int { return max(e.w-e.gutterW(), 1) }

func (e *Editor) gutterW() int { return len(itoa(e.buf.Len())) + 2 }

// scrollToCursor scrolls the least that shows the cursor.
func (e *Editor) scrollToCursor() {
	h, w := e.textH(), e.textW()
	if e.cur.Line < e.top {
		e.top = e.cur.Line
	}
	if e.cur.Line >= e.top+h {
		e.top = e.cur.Line - h + 1
	}
	e.top = min(max(e.top, 0), max(e.buf.Len()-1, 0))
	col := e.visualCol(e.cur)
	if col < e.left {
		e.left = max(col-w/4, 0)
	}
	if col >= e.left+w {
		e.left = col - w + w/4 + 1
	}
}

// Scroll moves the view by n lines without moving the cursor past it
// (the mouse wheel).
func (e *Editor) Scroll(n int) {
	e.top = min(max(e.top+n, 0), max(e.buf.Len()-e.textH(), 0))
	if e.cur.Line < e.top {
		e.cur = e.buf.Clamp(Pos{e.top, e.colAt(e.top, e.want)})
	} else if e.cur.Line >= e.top+e.textH() {
		line := e.top + e.textH() - 1
		e.cur = e.buf.Clamp(Pos{line, e.colAt(line, e.want)})
	}
}

// Top returns the first line shown.
func (e *Editor) Top() int { return e.top }

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// Click puts the cursor at an inside row and column (a mouse click).
func (e *Editor) Click(row, col int) {
	if row < 0 || row >= e.textH() {
		return
	}
	line := min(e.top+row, e.buf.Len()-1)
	e.moveTo(Pos{line, e.colAt(line, max(col-e.gutterW(), 0)+e.left)}, false, false)
}
