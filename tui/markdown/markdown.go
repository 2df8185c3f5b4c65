package markdown

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/atelier-studio/atelier/internal/termsafe"
	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/syntax"
)

// Renderer draws Markdown with one theme's styles. Build one per theme: a
// Doc drawn with another Renderer draws everything again.
type Renderer struct {
	parser parser.Parser
	lk     *looks
	// lighters colour code by language, remembering lines: an open
	// fence drawn again at each delta lexes only its new lines. A
	// language without a lexer maps to nil.
	lighters map[string]*syntax.Highlighter
}

// NewRenderer returns a renderer with the styles' Markdown roles and
// GitHub's extensions (tables, strikethrough, task lists, bare links).
func NewRenderer(st themes.Styles) *Renderer {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	return &Renderer{parser: md.Parser(), lk: newLooks(st), lighters: map[string]*syntax.Highlighter{}}
}

// lighter returns the highlighter of a fence's language, or nil.
func (r *Renderer) lighter(lang string) *syntax.Highlighter {
	lang = strings.ToLower(lang)
	h, ok := r.lighters[lang]
	if !ok {
		if lx := syntax.ForLanguage(lang); lx != nil {
			h = syntax.NewHighlighter(lx)
		}
		r.lighters[lang] = h
	}
	return h
}

// Render draws a whole source at a width, with no cache.
func (r *Renderer) Render(src string, width int) []string {
	var d Doc
	return d.Lines(r, src, width)
}

// block draws one block's source: every line at most width cells.
func (r *Renderer) block(src string, width int) []string {
	b := []byte(termsafe.String(src))
	root := r.parser.Parse(text.NewReader(b))
	w := &writer{lk: r.lk, lighter: r.lighter, cols: max(width, 1), src: b}
	w.container(root, w.cols, nil, nil, false)
	return w.out
}

// Doc is the drawing of one growing Markdown source, kept block by block
// so that a streamed delta costs the open tail, not the whole answer.
type Doc struct {
	r      *Renderer
	width  int
	src    string  // the source last drawn
	closed []block // blocks followed by another, in order
	tail   int     // where the open tail starts in src

	joined []string // the closed blocks' lines, a blank line between
	drawn  int      // how many closed blocks joined holds

	tailSrc   string
	tailLines []string
	tailOK    bool
	fence     openFence // the tail's drawing while it is an unclosed fence

	renders int
}

// block is a closed block: its place in the source and its drawing.
type block struct {
	start, end int
	lines      []string
	ok         bool
}

// Renders counts the blocks drawn (closed blocks and tails alike), so
// tests and benchmarks can tell a cached block from a drawn one.
func (d *Doc) Renders() int { return d.renders }

// Lines returns src drawn at width. A source that does not extend the last
// one (a replaced revision) is split again; a new renderer or width draws
// every block again.
func (d *Doc) Lines(r *Renderer, src string, width int) []string {
	if r != d.r || width != d.width {
		d.r, d.width = r, width
		d.invalidate()
	}
	if len(src) < d.tail || src[:d.tail] != d.src[:d.tail] {
		d.closed, d.tail = nil, 0
		d.invalidate()
	}
	d.src = src
	for _, s := range blockStarts(src, d.tail) {
		b := block{start: d.tail, end: s}
		if d.tailOK && sameBlock(d.tailSrc, src[b.start:b.end]) {
			// The tail just closed as it was last drawn: keep that.
			b.lines, b.ok = d.tailLines, true
		}
		d.closed = append(d.closed, b)
		d.tail = s
		d.tailOK = false
	}
	for ; d.drawn < len(d.closed); d.drawn++ {
		b := &d.closed[d.drawn]
		if !b.ok {
			b.lines, b.ok = d.draw(src[b.start:b.end]), true
		}
		if len(b.lines) == 0 {
			continue
		}
		if len(d.joined) > 0 {
			d.joined = append(d.joined, "")
		}
		d.joined = append(d.joined, b.lines...)
	}
	if t := src[d.tail:]; !d.tailOK || t != d.tailSrc {
		d.tailSrc, d.tailLines, d.tailOK = t, nil, true
		if strings.TrimSpace(t) != "" {
			var ok bool
			if d.tailLines, ok = d.drawOpenFence(t); !ok {
				d.tailLines = d.draw(t)
			}
		}
	}
	out := make([]string, 0, len(d.joined)+1+len(d.tailLines))
	out = append(out, d.joined...)
	if len(out) > 0 && len(d.tailLines) > 0 {
		out = append(out, "")
	}
	return append(out, d.tailLines...)
}

func (d *Doc) draw(src string) []string {
	d.renders++
	return d.r.block(src, d.width)
}

// sameBlock reports whether two sources of a block draw the same: they
// differ at most in white space at the end, which Markdown ignores there.
func sameBlock(a, b string) bool {
	return strings.TrimRight(a, " \t\r\n") == strings.TrimRight(b, " \t\r\n")
}

// invalidate forgets every drawing, keeping the split.
func (d *Doc) invalidate() {
	for i := range d.closed {
		d.closed[i].lines, d.closed[i].ok = nil, false
	}
	d.joined, d.drawn = nil, 0
	d.tailLines, d.tailOK = nil, false
	d.fence = openFence{}
}
