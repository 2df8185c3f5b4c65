package tui

import (
	"strconv"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/tui/frame"
)

// The studio takes the mouse, so the terminal's own selection is not
// there (and, were it there, it would run across all three columns). A
// drag inside a pane selects text the way a terminal does, but within
// that pane's inside only: the selection is highlighted while the button
// is held and copied to the clipboard (OSC 52) on release. A press that
// is never dragged stays a click.

// mouseSel is a selection the mouse is dragging.
type mouseSel struct {
	held bool
	// in is the inside (the box without its border) of the pane the
	// press was in: the selection never leaves it.
	in rect
	// from is the press, to the pointer, both within in.
	fromX, fromY, toX, toY int
	// dragged says the pointer moved: a selection, not a click.
	dragged bool
}

// inside is the pane's box without its border.
func (r rect) inside() rect { return rect{r.x + 1, r.y + 1, max(r.w-2, 0), max(r.h-2, 0)} }

// clip moves a point into r.
func (r rect) clip(x, y int) (int, int) {
	return clamp(x, r.x, r.x+r.w-1), clamp(y, r.y, r.y+r.h-1)
}

// paneAt is the box of the pane under the point, if any.
func (ar areas) paneAt(x, y int) (rect, bool) {
	for _, r := range []rect{ar.sessions, ar.files, ar.center, ar.activity, ar.actions} {
		if r.w > 0 && r.contains(x, y) {
			return r, true
		}
	}
	return rect{}, false
}

// selectFrom starts a selection at a press inside a pane; a press on a
// pane's border starts none.
func (sc *screen) selectFrom(x, y int) {
	sc.sel = mouseSel{}
	r, ok := sc.areas().paneAt(x, y)
	if !ok || !r.inside().contains(x, y) {
		return
	}
	sc.sel = mouseSel{held: true, in: r.inside(), fromX: x, fromY: y, toX: x, toY: y}
}

// selectTo follows the pointer, held within the pane.
func (sc *screen) selectTo(x, y int) {
	s := &sc.sel
	if !s.held {
		return
	}
	s.toX, s.toY = s.in.clip(x, y)
	s.dragged = s.dragged || s.toX != s.fromX || s.toY != s.fromY
}

// span is the selected columns [x0, x1) of screen row y, as a terminal
// selects: from the start to the pane's right edge on the first row,
// whole rows between, to the end on the last.
func (s mouseSel) span(y int) (x0, x1 int, ok bool) {
	if !s.held || !s.dragged {
		return 0, 0, false
	}
	ax, ay, bx, by := s.fromX, s.fromY, s.toX, s.toY
	if by < ay || by == ay && bx < ax {
		ax, ay, bx, by = bx, by, ax, ay
	}
	if y < ay || y > by {
		return 0, 0, false
	}
	x0, x1 = s.in.x, s.in.x+s.in.w
	if y == ay {
		x0 = ax
	}
	if y == by {
		x1 = bx + 1
	}
	return x0, x1, x0 < x1
}

// paint highlights the selection on the drawn screen.
func (sc *screen) paint(screen string, style lipgloss.Style) string {
	if !sc.sel.dragged {
		return screen
	}
	lines := strings.Split(screen, "\n")
	for y := range lines {
		if x0, x1, ok := sc.sel.span(y); ok {
			lines[y] = frame.Paint(lines[y], x0, x1, style)
		}
	}
	return strings.Join(lines, "\n")
}

// text is the selection's text on the drawn screen: each row's cells
// without their trailing blanks, the rows on lines of their own.
func (s mouseSel) text(screen string) string {
	var rows []string
	for y, l := range strings.Split(ansi.Strip(screen), "\n") {
		if x0, x1, ok := s.span(y); ok {
			rows = append(rows, strings.TrimRight(ansi.Cut(l, x0, x1), " "))
		}
	}
	return strings.Join(rows, "\n")
}

// selectEnd lets go of the selection and copies its text on drawn (the
// screen as the operator sees it), when the press was dragged; a click
// copies nothing.
func (sc *screen) selectEnd(drawn func() string, status *statusLine) tea.Cmd {
	s := sc.sel
	sc.sel = mouseSel{}
	if !s.dragged {
		return nil
	}
	text := s.text(drawn())
	if strings.TrimSpace(text) == "" {
		status.set("nothing to copy: the selection is blank", false)
		return nil
	}
	status.set("copied "+strconv.Itoa(utf8.RuneCountInString(text))+" characters", false)
	return tea.SetClipboard(text)
}
