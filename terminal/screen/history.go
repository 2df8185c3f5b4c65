package screen

import uv "github.com/charmbracelet/ultraviolet"

// History is every line kept and where the cursor is among them.
type History struct {
	// Lines are the scrollback's, oldest first, then the screen's rows,
	// drawn with their styles.
	Lines []string
	// Scrollback is how many of Lines are scrollback.
	Scrollback int
	// CursorX and CursorY place the cursor on the screen (CursorY counts
	// from the screen's top row, Lines[Scrollback]).
	CursorX, CursorY int
}

// History returns every line kept and the cursor, read together from the
// emulator (a frame may be older): one consistent copy for a view that
// holds still (a copy mode) while output goes on arriving.
func (s *Screen) History() History {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.em.Scrollback().Lines()
	rows := s.em.Height()
	cur := s.em.CursorPosition()
	lines := make([]string, 0, len(sb)+rows)
	for _, l := range sb {
		lines = append(lines, l.Render())
	}
	var row uv.Line
	for y := range rows {
		row = s.line(row, y)
		lines = append(lines, row.Render())
	}
	return History{Lines: lines, Scrollback: len(sb), CursorX: cur.X, CursorY: cur.Y}
}
