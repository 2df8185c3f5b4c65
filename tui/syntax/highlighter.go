package syntax

import (
	"slices"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// ContextLines is how many lines around a run of lines are lexed with it,
// so a line inside a short block comment or raw string still colours
// right.
const ContextLines = 3

// cacheLimit bounds the lines a Highlighter remembers.
const cacheLimit = 20_000

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
	from, to := max(a-ContextLines, 0), min(b+ContextLines, len(texts))
	spans := Lex(h.lexer, texts[from:to])
	for i := b; i < to; i++ {
		if old, ok := h.cache[key(i)]; ok && !slices.Equal(old, spans[i-from]) {
			to = len(texts)
			spans = Lex(h.lexer, texts[from:to])
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

// Forget drops every line it remembers, so the next Lines lexes afresh.
func (h *Highlighter) Forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.cache)
}
