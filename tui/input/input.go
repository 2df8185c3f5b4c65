package input

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

// Line is a one-line editor; with Multi, a prompt box of several lines
// (lines.go).
type Line struct {
	Prompt      string // drawn before the text, styled as a hint
	Placeholder string // drawn when empty
	Limit       int    // maximum runes; 0 is unlimited
	// Multi keeps line breaks (a paste's, Newline's) instead of turning
	// them into spaces, and draws the text wrapped on up to MaxRows rows.
	Multi   bool
	MaxRows int // rows drawn at most with Multi; 0 is 8

	st      themes.Styles
	text    []rune
	pos     int
	off     int
	width   int
	focused bool
	rowOff  int // the first row drawn with Multi
}

// New returns an empty line.
func New(st themes.Styles, prompt string) *Line { return &Line{Prompt: prompt, st: st, width: 20} }

// SetWidth sets the drawn width, prompt included.
func (l *Line) SetWidth(w int) { l.width = max(w, 1) }

// Value returns the text.
func (l *Line) Value() string { return string(l.text) }

// SetValue replaces the text and puts the cursor at its end.
func (l *Line) SetValue(s string) {
	l.text = []rune(l.clean(s))
	if l.Limit > 0 && len(l.text) > l.Limit {
		l.text = l.text[:l.Limit]
	}
	l.pos = len(l.text)
}

// Reset empties the line.
func (l *Line) Reset() { l.text, l.pos, l.off, l.rowOff = nil, 0, 0, 0 }

// Focus shows the cursor.
func (l *Line) Focus() { l.focused = true }

// Blur hides it.
func (l *Line) Blur() { l.focused = false }

// Focused reports whether the line shows its cursor.
func (l *Line) Focused() bool { return l.focused }

// clean turns pasted line breaks and tabs into spaces and drops other
// control characters; with Multi it keeps the line breaks (a CRLF or a
// lone CR as one) and makes a tab four spaces, which keeps a pasted
// block's indentation.
func (l *Line) clean(s string) string {
	if l.Multi {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
		s = strings.ReplaceAll(s, "\t", "    ")
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' && l.Multi:
			return r
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}

// Update edits the line with a key or a paste; it reports whether the
// message was used.
func (l *Line) Update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		l.insert(l.clean(msg.Content))
		return true
	case tea.KeyPressMsg:
		return l.key(msg)
	}
	return false
}

func (l *Line) key(msg tea.KeyPressMsg) bool {
	if l.Multi && l.lineKey(msg.String()) {
		return true
	}
	switch msg.String() {
	case "left", "ctrl+b":
		l.pos = max(l.pos-1, 0)
	case "right", "ctrl+f":
		l.pos = min(l.pos+1, len(l.text))
	case "home", "ctrl+a":
		l.pos = 0
	case "end", "ctrl+e":
		l.pos = len(l.text)
	case "alt+left", "alt+b", "ctrl+left":
		l.pos = l.wordLeft()
	case "alt+right", "alt+f", "ctrl+right":
		l.pos = l.wordRight()
	case "backspace", "ctrl+h":
		if l.pos > 0 {
			l.text = append(l.text[:l.pos-1], l.text[l.pos:]...)
			l.pos--
		}
	case "delete", "ctrl+d":
		if l.pos < len(l.text) {
			l.text = append(l.text[:l.pos], l.text[l.pos+1:]...)
		}
	case "ctrl+w", "alt+backspace":
		w := l.wordLeft()
		l.text = append(l.text[:w], l.text[l.pos:]...)
		l.pos = w
	case "ctrl+u":
		l.text = l.text[l.pos:]
		l.pos = 0
	case "ctrl+k":
		l.text = l.text[:l.pos]
	default:
		if msg.Text == "" || msg.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
			return false
		}
		l.insert(l.clean(msg.Text))
	}
	return true
}

func (l *Line) insert(s string) {
	rs := []rune(s)
	if l.Limit > 0 {
		rs = rs[:min(len(rs), max(l.Limit-len(l.text), 0))]
	}
	l.text = append(l.text[:l.pos], append(rs, l.text[l.pos:]...)...)
	l.pos += len(rs)
}

func (l *Line) wordLeft() int {
	i := l.pos
	for i > 0 && unicode.IsSpace(l.text[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(l.text[i-1]) {
		i--
	}
	return i
}

func (l *Line) wordRight() int {
	i := l.pos
	for i < len(l.text) && unicode.IsSpace(l.text[i]) {
		i++
	}
	for i < len(l.text) && !unicode.IsSpace(l.text[i]) {
		i++
	}
	return i
}

// View draws the line in its width: prompt, the visible window of the text
// and, when focused, the cursor as a reversed cell.
func (l *Line) View() string {
	if l.Multi {
		return strings.Join(l.ViewLines(), "\n")
	}
	return l.oneLine()
}

// oneLine draws the text on one row, scrolled to keep the cursor in
// sight (a Multi line draws an empty text so too).
func (l *Line) oneLine() string {
	prompt := l.st.Hint.Render(l.Prompt)
	room := max(l.width-ansi.StringWidth(l.Prompt), 1)
	if len(l.text) == 0 {
		ph := ansi.Truncate(l.Placeholder, max(room-1, 0), "…")
		if l.focused {
			return prompt + cursor(l.st, " ") + l.st.Subtle.Render(ph)
		}
		return prompt + l.st.Subtle.Render(ph)
	}
	// Keep the cursor inside the window [off, off+room).
	if l.pos < l.off {
		l.off = l.pos
	}
	for width(l.text[l.off:l.pos])+1 > room && l.off < l.pos {
		l.off++
	}
	var b strings.Builder
	used := 0
	for i := l.off; i <= len(l.text); i++ {
		cell := " "
		if i < len(l.text) {
			cell = string(l.text[i])
		}
		cw := max(ansi.StringWidth(cell), 1)
		if used+cw > room {
			break
		}
		used += cw
		switch {
		case i == l.pos && l.focused:
			b.WriteString(cursor(l.st, cell))
		case i < len(l.text):
			b.WriteString(l.st.Base.Render(cell))
		}
	}
	return prompt + b.String()
}

func cursor(st themes.Styles, cell string) string { return st.Selected.Render(cell) }

func width(rs []rune) int { return ansi.StringWidth(string(rs)) }

// SetStyles changes the styles (the theme changed).
func (l *Line) SetStyles(st themes.Styles) { l.st = st }

// Mention returns the word being typed at the cursor when it starts with
// "@" (a path mention): where its "@" is and what follows it, up to the
// cursor; ok is false when the cursor is not in such a word.
func (l *Line) Mention() (start int, word string, ok bool) {
	i := l.pos
	for i > 0 && !unicode.IsSpace(l.text[i-1]) {
		i--
	}
	if i == l.pos || l.text[i] != '@' {
		return 0, "", false
	}
	return i, string(l.text[i+1 : l.pos]), true
}

// Replace puts s in place of the text from start to the cursor, the
// cursor after it (a completed mention).
func (l *Line) Replace(start int, s string) {
	if start < 0 || start > l.pos {
		return
	}
	rest := append([]rune(s), l.text[l.pos:]...)
	l.text = append(l.text[:start:start], rest...)
	l.pos = start + len([]rune(s))
}
