package screen

import (
	"slices"

	uv "github.com/charmbracelet/ultraviolet"
)

// draw makes a frame of the visible screen.
func (s *Screen) draw(seq uint64) *Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	cols, rows := s.em.Width(), s.em.Height()
	cur := s.em.CursorPosition()
	f := &Frame{
		Lines:         make([]string, rows),
		Cols:          cols,
		Rows:          rows,
		CursorX:       cur.X,
		CursorY:       cur.Y,
		CursorVisible: !s.em.CursorHidden(),
		AltScreen:     s.em.IsAltScreen(),
		Title:         s.title,
		Seq:           seq,
	}
	var row uv.Line
	for y := range rows {
		row = s.line(row, y)
		f.Lines[y] = row.Render()
	}
	return f
}

// line copies row y of the screen into buf (reused between rows).
func (s *Screen) line(buf uv.Line, y int) uv.Line {
	w := s.em.Width()
	if cap(buf) < w {
		buf = make(uv.Line, w)
	}
	buf = buf[:w]
	for x := range w {
		if c := s.em.CellAt(x, y); c != nil {
			buf[x] = *c
		} else {
			buf[x] = uv.EmptyCell
		}
	}
	return buf
}

// same reports whether two frames show the same thing.
func (f *Frame) same(g *Frame) bool {
	return f.Cols == g.Cols && f.Rows == g.Rows && f.CursorX == g.CursorX && f.CursorY == g.CursorY &&
		f.CursorVisible == g.CursorVisible && f.AltScreen == g.AltScreen && f.Title == g.Title &&
		slices.Equal(f.Lines, g.Lines)
}
