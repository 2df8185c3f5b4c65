package frame

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Line fits one line to exactly width cells.
func Line(s string, width int) string {
	if width <= 0 {
		return ""
	}
	w := ansi.StringWidth(s)
	if w > width {
		s = ansi.Truncate(s, width, "…")
		w = ansi.StringWidth(s)
	}
	return s + strings.Repeat(" ", width-w)
}

// Fit returns exactly height lines of exactly width cells: extra lines are
// dropped, missing ones blank.
func Fit(lines []string, width, height int) []string {
	out := make([]string, height)
	for i := range out {
		if i < len(lines) {
			out[i] = Line(lines[i], width)
		} else {
			out[i] = strings.Repeat(" ", max(width, 0))
		}
	}
	return out
}

// Box is a border drawn around content.
type Box struct {
	Title       string // already styled; drawn into the top edge
	Border      lipgloss.Style
	Right       string // already styled; drawn at the right of the top edge
	Width       int    // outer width
	Height      int    // outer height
	ContentRows []string
}

// Render draws the box; content is fitted to the inside.
func (b Box) Render() string {
	w, h := b.Width, b.Height
	if w < 2 || h < 2 {
		return strings.Join(Fit(nil, max(w, 0), max(h, 0)), "\n")
	}
	inner := w - 2
	var sb strings.Builder
	sb.Grow(w * h * 2)
	sb.WriteString(b.top(inner))
	bar := b.Border.Render("│")
	for _, l := range Fit(b.ContentRows, inner, h-2) {
		sb.WriteByte('\n')
		sb.WriteString(bar)
		sb.WriteString(l)
		sb.WriteString(bar)
	}
	sb.WriteByte('\n')
	sb.WriteString(b.Border.Render("╰" + strings.Repeat("─", inner) + "╯"))
	return sb.String()
}

func (b Box) top(inner int) string {
	title := b.Title
	if ansi.StringWidth(title) > 0 {
		title = " " + title + " "
	} else {
		title = ""
	}
	right := b.Right
	if ansi.StringWidth(right) > 0 {
		right = " " + right + " "
	} else {
		right = ""
	}
	tw := ansi.StringWidth(title)
	rw := ansi.StringWidth(right)
	if tw+rw+1 > inner {
		right, rw = "", 0
	}
	if tw+1 > inner {
		title = ansi.Truncate(title, max(inner-1, 0), "…")
		tw = ansi.StringWidth(title)
	}
	fill := inner - tw - rw - 1
	return b.Border.Render("╭─") + title + b.Border.Render(strings.Repeat("─", max(fill, 0))) + right + b.Border.Render("╮")
}

// Join places blocks side by side, top-aligned. Each block is a rendered
// rectangle (Box and Fit draw their lines all as wide as the first), so its
// lines are joined as they are, measured once per block and not once per
// line: a full frame would otherwise measure every line of every pane
// (lipgloss.JoinHorizontal does), most of a frame's time. A block shorter
// than the others is padded with blanks of its width.
func Join(blocks ...string) string {
	cols := make([][]string, len(blocks))
	widths := make([]int, len(blocks))
	h, size := 0, 0
	for i, b := range blocks {
		cols[i] = strings.Split(b, "\n")
		widths[i] = ansi.StringWidth(cols[i][0])
		h = max(h, len(cols[i]))
		size += len(b)
	}
	var sb strings.Builder
	sb.Grow(size + h)
	for y := range h {
		if y > 0 {
			sb.WriteByte('\n')
		}
		for i, c := range cols {
			if y < len(c) {
				sb.WriteString(c[y])
			} else {
				sb.WriteString(strings.Repeat(" ", widths[i]))
			}
		}
	}
	return sb.String()
}

// Stack places blocks one over the other.
func Stack(blocks ...string) string {
	return strings.Join(blocks, "\n")
}

// Overlay draws box over base with its top left corner at (x, y), keeping
// base's styles on both sides of the box.
func Overlay(base, box string, x, y int) string {
	lines := strings.Split(base, "\n")
	for i, bl := range strings.Split(box, "\n") {
		row := y + i
		if row < 0 || row >= len(lines) {
			continue
		}
		l := lines[row]
		left := ansi.Truncate(l, x, "")
		if pad := x - ansi.StringWidth(left); pad > 0 {
			left += strings.Repeat(" ", pad)
		}
		right := ansi.TruncateLeft(l, x+ansi.StringWidth(bl), "")
		lines[row] = left + "\x1b[m" + bl + "\x1b[m" + right
	}
	return strings.Join(lines, "\n")
}

// Paint redraws the cells [x0, x1) of line in style, their text kept and
// their own styles dropped (a selection's highlight), the cells on either
// side as they were.
func Paint(line string, x0, x1 int, style lipgloss.Style) string {
	w := ansi.StringWidth(line)
	x0, x1 = max(x0, 0), min(x1, w)
	if x0 >= x1 {
		return line
	}
	mid := ansi.Strip(ansi.Cut(line, x0, x1))
	return ansi.Truncate(line, x0, "") + "\x1b[m" + style.Render(mid) + "\x1b[m" + ansi.TruncateLeft(line, x1, "")
}
