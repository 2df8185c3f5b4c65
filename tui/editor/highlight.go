package editor

import (
	"slices"
	"sync"

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

// contextLines is how many lines around a run of lines are lexed with it,
// so a line inside a short block comment or raw string still colours
// right.
const contextLines = 3

// cacheLimit bounds the lines a Highlighter remembers.
const cacheLimit = 20_000

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
	lighter *Highlighter
	pending bool   // a command is out
	want    uint64 // version asked for
	wantTop int
	last    Highlighted
	byText  map[string][]Span
}

// Highlighter colours lines with one lexer and remembers the answers by
// line, keyed by the line's text and the text of the line above it: after
// an edit or a scroll, only the lines it has not seen are lexed again,
// with a few lines of context. It is safe for concurrent use.
type Highlighter struct {
	lexer chroma.Lexer
	mu    sync.Mutex
	cache map[string][]Span
}

// NewHighlighter returns a highlighter for a lexer.
func NewHighlighter(lexer chroma.Lexer) *Highlighter {
	return &Highlighter{lexer: lexer, cache: map[string][]Span{}}
}

func lineKey(prev, text string, first bool) string {
	if first {
		return "\x00\n" + text
	}
	return prev + "\n" + text
}

// Lines returns the spans of each line; atStart says texts[0] is the
// file's first line (otherwise the first line is context only and may
// come back plain).
func (h *Highlighter) Lines(texts []string, atStart bool) [][]Span {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([][]Span, len(texts))
	key := func(i int) string {
		if i == 0 {
			return lineKey("", texts[0], atStart)
		}
		return lineKey(texts[i-1], texts[i], false)
	}
	first := 0
	if !atStart {
		first = 1
	}
	for i := first; i < len(texts); {
		if sp, ok := h.cache[key(i)]; ok {
			out[i] = sp
			i++
			continue
		}
		j := i
		for j < len(texts) {
			if _, ok := h.cache[key(j)]; ok {
				break
			}
			j++
		}
		j = h.lexRun(texts, out, i, j, key)
		i = j
	}
	if len(h.cache) > cacheLimit {
		clear(h.cache)
	}
	return out
}

// lexRun lexes lines [a, b) with context and caches them. When the lines
// after the run come out coloured differently than remembered (the run
// opened a comment, say), it lexes to the end instead. It returns where
// the lexed lines end.
func (h *Highlighter) lexRun(texts []string, out [][]Span, a, b int, key func(int) string) int {
	from, to := max(a-contextLines, 0), min(b+contextLines, len(texts))
	spans := syntax.Lex(h.lexer, texts[from:to])
	for i := b; i < to; i++ {
		if old, ok := h.cache[key(i)]; ok && !slices.Equal(old, spans[i-from]) {
			to = len(texts)
			spans = syntax.Lex(h.lexer, texts[from:to])
			b = to
			break
		}
	}
	for i := a; i < b; i++ {
		out[i] = spans[i-from]
		h.cache[key(i)] = spans[i-from]
	}
	return b
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
	if hs.last.Version == v && hs.last.Texts != nil && hs.last.Start <= max(e.top-contextLines, 0) &&
		hs.last.Start+len(hs.last.Texts) >= end {
		return nil
	}
	from := max(e.top-contextLines, 0)
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
