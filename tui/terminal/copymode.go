package terminal

import (
	"strconv"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/tui/frame"
)

// Copy mode reads the terminal with the keyboard, as tmux's does: the
// view holds a copy of the scrollback and screen taken on entry (the
// program's output goes on arriving into the screen beneath), a cursor
// moves over it, v or V marks a selection and y or enter copies it. Its
// keys are fixed, the vi ones a terminal user already knows.

// copyMode is the state of a tab in copy mode.
type copyMode struct {
	lines []string // drawn, the scrollback's oldest first, then the screen
	plain []string // the same without styles
	top   int      // the first line shown
	x, y  int      // the cursor: column, line
	// sel is a selection from the anchor (ax, ay) to the cursor; lineWise
	// takes whole lines.
	sel, lineWise bool
	ax, ay        int
}

// CopyResult is what a key did in copy mode.
type CopyResult struct {
	// Text is the selection to copy, when the key copied one; copying
	// leaves copy mode.
	Text string
	// Left says copy mode ended.
	Left bool
	// Note is something to tell the operator (nothing was selected).
	Note string
}

// EnterCopy starts copy mode with the cursor where the program's is, on
// the part of the scrollback the view shows.
func (t *Tab) EnterCopy() {
	h := t.scr.History() // its cursor, not the frame's: a frame may be older than the lines
	lines, sb := h.Lines, h.Scrollback
	c := &copyMode{lines: lines, plain: make([]string, len(lines))}
	for i, l := range lines {
		c.plain[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	c.x, c.y = h.CursorX, min(sb+h.CursorY, len(lines)-1)
	c.top = max(sb-t.back, 0)
	if t.back > 0 {
		c.y = c.top + t.rows() - 1
	}
	t.copy = c
	t.follow()
}

// Copying reports whether the tab is in copy mode.
func (t *Tab) Copying() bool { return t.copy != nil }

// rows is how many lines copy mode shows: the last row says the mode.
func (t *Tab) rows() int { return max(t.h-1, 1) }

// CopyKey acts on a key in copy mode.
func (t *Tab) CopyKey(msg tea.KeyPressMsg) CopyResult {
	c := t.copy
	if c == nil {
		return CopyResult{Left: true}
	}
	last := len(c.lines) - 1
	switch msg.String() {
	case "esc", "q":
		t.copy = nil
		return CopyResult{Left: true}
	case "left", "h":
		c.x = max(c.x-1, 0)
	case "right", "l":
		c.x = min(c.x+1, max(t.w-1, 0))
	case "up", "k":
		c.y = max(c.y-1, 0)
	case "down", "j":
		c.y = min(c.y+1, last)
	case "pgup":
		c.y = max(c.y-t.rows(), 0)
	case "pgdown":
		c.y = min(c.y+t.rows(), last)
	case "0", "home":
		c.x = 0
	case "$", "end":
		c.x = max(ansi.StringWidth(c.plain[c.y])-1, 0)
	case "g":
		c.x, c.y = 0, 0
	case "G":
		c.x, c.y = 0, last
	case "w":
		c.x, c.y = c.nextWord()
	case "b":
		c.x, c.y = c.prevWord()
	case "v", "V":
		lineWise := msg.String() == "V"
		if c.sel && c.lineWise == lineWise {
			c.sel = false // the same key again drops the selection
		} else {
			c.sel, c.lineWise, c.ax, c.ay = true, lineWise, c.x, c.y
		}
	case "y", "enter":
		if !c.sel {
			return CopyResult{Note: "nothing selected: v (or V for lines) starts a selection"}
		}
		text := c.text()
		t.copy = nil
		return CopyResult{Text: text, Left: true}
	}
	t.follow()
	return CopyResult{}
}

// follow scrolls the copy view so the cursor shows.
func (t *Tab) follow() {
	c := t.copy
	rows := t.rows()
	c.top = clampInt(c.top, c.y-rows+1, c.y)
	c.top = clampInt(c.top, 0, max(len(c.lines)-rows, 0))
}

func clampInt(v, lo, hi int) int { return min(max(v, lo), hi) }

// isWord says a rune belongs to a word (w and b stop at words' starts).
func isWord(r rune) bool { return !unicode.IsSpace(r) }

// nextWord is the start of the next word after the cursor, on a later
// line when none follows on this one.
func (c *copyMode) nextWord() (int, int) {
	for y, x := c.y, c.x+1; y < len(c.plain); y, x = y+1, 0 {
		rs := []rune(c.plain[y])
		for ; x < len(rs); x++ {
			if isWord(rs[x]) && (x == 0 || !isWord(rs[x-1])) {
				return x, y
			}
		}
	}
	return c.x, c.y
}

// prevWord is the start of the word before the cursor, on an earlier line
// when none is before it on this one.
func (c *copyMode) prevWord() (int, int) {
	for y, x := c.y, c.x-1; y >= 0; y-- {
		rs := []rune(c.plain[y])
		if y != c.y {
			x = len(rs) - 1
		}
		for x = min(x, len(rs)-1); x >= 0; x-- {
			if isWord(rs[x]) && (x == 0 || !isWord(rs[x-1])) {
				return x, y
			}
		}
	}
	return c.x, c.y
}

// span is the selected columns [x0, x1) of line y.
func (c *copyMode) span(y, width int) (x0, x1 int, ok bool) {
	if !c.sel {
		return 0, 0, false
	}
	ax, ay, bx, by := c.ax, c.ay, c.x, c.y
	if by < ay || by == ay && bx < ax {
		ax, ay, bx, by = bx, by, ax, ay
	}
	if y < ay || y > by {
		return 0, 0, false
	}
	x0, x1 = 0, width
	if !c.lineWise {
		if y == ay {
			x0 = ax
		}
		if y == by {
			x1 = bx + 1
		}
	}
	return x0, x1, x0 < x1
}

// text is the selection, each line without its trailing blanks.
func (c *copyMode) text() string {
	var out []string
	for y, l := range c.plain {
		if x0, x1, ok := c.span(y, ansi.StringWidth(c.lines[y])); ok {
			out = append(out, strings.TrimRight(ansi.Cut(l, x0, x1), " "))
		}
	}
	return strings.Join(out, "\n")
}

// copyView draws copy mode: the held lines, the selection and the cursor,
// and a last row that says where the cursor is.
func (t *Tab) copyView() []string {
	c := t.copy
	rows := t.rows()
	lines := make([]string, 0, t.h)
	for y := c.top; y < min(c.top+rows, len(c.lines)); y++ {
		l := frame.Line(c.lines[y], t.w)
		if x0, x1, ok := c.span(y, t.w); ok {
			l = frame.Paint(l, x0, x1, t.st.Selection)
		}
		if y == c.y {
			l = withCursor(t.st, l, min(c.x, t.w-1))
		}
		lines = append(lines, l)
	}
	lines = frame.Fit(lines, t.w, rows)
	what := "v, V select"
	if c.sel {
		what = "y copies"
	}
	note := "[copy " + strconv.Itoa(c.y+1) + "/" + strconv.Itoa(len(c.lines)) + " · " + what + " · esc leaves]"
	return frame.Fit(append(lines, t.st.Subtle.Render(note)), t.w, t.h)
}
