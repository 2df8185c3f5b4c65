package editor

import (
	tea "charm.land/bubbletea/v2"
	"github.com/alecthomas/chroma/v2"

	"github.com/atelier-studio/atelier/tui/syntax"
)

// class is a drawing role of a piece of text: a syntax role, or an
// overlay (selection, search match, cursor) that wins over it. The syntax
// roles keep syntax.Role's numbers.
type class uint8

const (
	clPlain    = class(syntax.Plain)
	clKeyword  = class(syntax.Keyword)
	clString   = class(syntax.String)
	clComment  = class(syntax.Comment)
	clNumber   = class(syntax.Number)
	clFunc     = class(syntax.Func)
	clType     = class(syntax.Type)
	clOperator = class(syntax.Operator)
)

const (
	clSelection = class(syntax.Roles) + iota
	clMatch
	clCursor
	clCount
)

// Span colours bytes [Start, End) of a line.
type Span = syntax.Span

// Highlighted answers a Highlight command: the spans of lines [Start,
// Start+len(Lines)) of the text as it was at Version.
type Highlighted struct {
	ID      int
	Version uint64
	Start   int
	Texts   []string // the lines lexed, to tell whether a line still has them
	Lines   [][]Span
}

// highlightState is the editor's side of highlighting.
type highlightState struct {
	lexer   chroma.Lexer
	lighter *syntax.Highlighter
	pending bool   // a command is out
	want    uint64 // version asked for
	wantTop int
	last    Highlighted
	byText  map[string][]Span
}

// Highlight returns the command that colours the lines in view, or nil
// when they are coloured already, an answer is on its way, or the file has
// no syntax.
func (e *Editor) Highlight() tea.Cmd {
	hs := &e.hl
	if hs.lexer == nil || hs.pending || e.h <= 0 {
		return nil
	}
	v := e.buf.Version()
	end := min(e.top+e.textH(), e.buf.Len())
	if hs.last.Version == v && hs.last.Texts != nil && hs.last.Start <= max(e.top-syntax.ContextLines, 0) &&
		hs.last.Start+len(hs.last.Texts) >= end {
		return nil
	}
	from := max(e.top-syntax.ContextLines, 0)
	texts := e.buf.Lines(from, end)
	hs.pending, hs.want, hs.wantTop = true, v, e.top
	lighter, id := hs.lighter, e.id
	return func() tea.Msg {
		return Highlighted{ID: id, Version: v, Start: from, Texts: texts, Lines: lighter.Lines(texts, from == 0)}
	}
}

// Highlighted takes an answer; it returns the next command when the view
// moved or the text changed meanwhile.
func (e *Editor) Highlighted(h Highlighted) tea.Cmd {
	hs := &e.hl
	hs.pending = false
	hs.last = h
	hs.byText = make(map[string][]Span, len(h.Texts))
	for i, t := range h.Texts {
		hs.byText[t] = h.Lines[i]
	}
	return e.Highlight()
}

// spansOf returns line n's colours: from the last answer when it lexed
// this very text at this line, or from the same text elsewhere in it
// (lines moved by an edit), else nil (plain).
func (e *Editor) spansOf(n int, text string) []Span {
	hs := &e.hl
	if i := n - hs.last.Start; i >= 0 && i < len(hs.last.Texts) && hs.last.Texts[i] == text {
		return hs.last.Lines[i]
	}
	return hs.byText[text]
}
