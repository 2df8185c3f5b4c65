package markdown

import (
	"strings"

	"github.com/atelier-studio/atelier/internal/termsafe"
	"github.com/atelier-studio/atelier/tui/syntax"
)

// openFence is the drawing of an open tail that is an unclosed code fence
// opened at the margin (an agent writing out a file, say). Its whole lines
// cannot change any more, so each is lexed and drawn once, as it
// completes; at each delta only the line still streaming is drawn, plain,
// and nothing is parsed. What it draws is what the block draws through the
// parser, line for line.
type openFence struct {
	head  string   // the tail's source up to its last whole line drawn
	fence fence    // the opening fence
	lang  string   // the language after it
	code  []string // the code lines of head, as drawn (tabs expanded)
	lines []string // their drawing
}

// drawOpenFence draws the open tail t when it is an unclosed fence at the
// margin, reporting false when it is not one.
func (d *Doc) drawOpenFence(t string) ([]string, bool) {
	opener, _, ok := strings.Cut(t, "\n")
	f, opens := fenceOpen(opener)
	if !ok || !opens || opener[0] != f.char {
		return nil, false
	}
	of := &d.fence
	if of.head == "" || !strings.HasPrefix(t, of.head) {
		lang, _, _ := strings.Cut(strings.TrimSpace(opener[f.n:]), " ")
		*of = openFence{head: opener + "\n", fence: f, lang: lang}
	}
	rest := t[len(of.head):]
	whole := rest[:strings.LastIndexByte(rest, '\n')+1]
	partial := rest[len(whole):]
	if of.fence.closes(partial) {
		// Most likely the fence's end, still without its line break:
		// the parser draws it closed.
		return nil, false
	}
	var added []string
	for _, l := range strings.SplitAfter(whole, "\n") {
		if l == "" {
			continue
		}
		if of.fence.closes(strings.TrimSuffix(l, "\n")) {
			return nil, false
		}
		added = append(added, codeText(termsafe.String(l)))
	}
	w := &writer{lk: d.r.lk, cols: max(d.width, 1)}
	pre := []piece{bar}
	if len(added) > 0 {
		var spans [][]syntax.Span
		if h := d.r.lighter(of.lang); h != nil {
			ctx := of.code[max(len(of.code)-syntax.ContextLines, 0):]
			all := h.Lines(append(ctx[:len(ctx):len(ctx)], added...), len(ctx) == len(of.code))
			spans = all[len(ctx):]
		}
		for i, l := range added {
			var sp []syntax.Span
			if spans != nil {
				sp = spans[i]
			}
			w.codeLine(l, sp, pre, pre)
		}
		of.code = append(of.code, added...)
		of.lines = append(of.lines, w.out...)
		of.head += whole
		w.out = nil
	}
	if partial != "" {
		w.codeLine(codeText(termsafe.String(partial)), nil, pre, pre)
	} else if len(of.lines) == 0 {
		w.emit(pre, nil)
	}
	d.renders++
	return append(of.lines[:len(of.lines):len(of.lines)], w.out...), true
}
