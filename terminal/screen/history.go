package screen

import uv "github.com/charmbracelet/ultraviolet"

// History returns every line kept, the scrollback's oldest first and then
// the screen's rows, drawn with their styles, and how many of them are
// scrollback: one consistent copy for a view that holds still (a copy
// mode) while output goes on arriving.
func (s *Screen) History() (lines []string, scrollback int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.em.Scrollback().Lines()
	rows := s.em.Height()
	lines = make([]string, 0, len(sb)+rows)
	for _, l := range sb {
		lines = append(lines, l.Render())
	}
	var row uv.Line
	for y := range rows {
		row = s.line(row, y)
		lines = append(lines, row.Render())
	}
	return lines, len(sb)
}
