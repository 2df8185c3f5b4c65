package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// run is text in one look; a "\n" in it breaks the line.
type run struct {
	text string
	look look
}

// piece is a run's text on one line, with its width in cells.
type piece struct {
	text string
	look look
	w    int
}

// width is the cells a text takes, with a fast path for ASCII.
func width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// wrap lays runs out in lines of at most w cells, breaking at spaces. A
// word (text between spaces, whatever its looks) wider than a line is cut
// into lines of its own. Spaces at a break are dropped.
func wrap(runs []run, w int) [][]piece {
	w = max(w, 1)
	var lines [][]piece
	var cur []piece
	curW := 0
	var space *piece // a space waiting for the next word on the line
	var word []piece // the word being gathered
	wordW := 0
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		sw := 0
		if space != nil && curW > 0 {
			sw = space.w
		}
		if curW > 0 && curW+sw+wordW > w {
			lines = append(lines, cur)
			cur, curW, sw = nil, 0, 0
		}
		if sw > 0 {
			cur = append(cur, *space)
			curW += sw
		}
		if wordW > w-curW {
			// Only a word wider than a whole line gets here.
			parts := breakHard(word, w, w-curW)
			for i, p := range parts {
				if i > 0 {
					lines = append(lines, cur)
					cur, curW = nil, 0
				}
				cur = append(cur, p...)
				curW += piecesWidth(p)
			}
		} else {
			cur = append(cur, word...)
			curW += wordW
		}
		word, wordW, space = nil, 0, nil
	}
	for _, r := range runs {
		text := strings.ReplaceAll(r.text, "\t", "    ")
		for text != "" {
			switch text[0] {
			case '\n':
				flushWord()
				lines = append(lines, cur)
				cur, curW, space = nil, 0, nil
				text = text[1:]
			case ' ':
				flushWord()
				n := len(text) - len(strings.TrimLeft(text, " "))
				space = &piece{text: text[:n], look: r.look, w: n}
				text = text[n:]
			default:
				n := strings.IndexAny(text, " \n")
				if n < 0 {
					n = len(text)
				}
				pw := width(text[:n])
				word = append(word, piece{text: text[:n], look: r.look, w: pw})
				wordW += pw
				text = text[n:]
			}
		}
	}
	flushWord()
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}

// breakHard cuts pieces into lines: the first of at most first cells, the
// others of at most w. Spaces are kept (code keeps its indentation).
func breakHard(pieces []piece, w, first int) [][]piece {
	var lines [][]piece
	var cur []piece
	room := max(first, 1)
	if first <= 0 {
		room = w
		lines = append(lines, nil)
	}
	for _, p := range pieces {
		for p.text != "" {
			if p.w <= room {
				cur = append(cur, p)
				room -= p.w
				break
			}
			head, rest := cut(p.text, room)
			if head != "" {
				cur = append(cur, piece{text: head, look: p.look, w: width(head)})
			}
			lines = append(lines, cur)
			cur, room = nil, w
			p = piece{text: rest, look: p.look, w: width(rest)}
		}
	}
	return append(lines, cur)
}

// cut splits s after at most n cells. It always takes at least one rune
// when n allows none, so a character wider than the line still moves on.
func cut(s string, n int) (string, string) {
	used := 0
	for i, r := range s {
		rw := 1
		if r >= utf8.RuneSelf {
			rw = ansi.StringWidth(string(r))
		}
		if used+rw > n {
			if i == 0 {
				size := utf8.RuneLen(r)
				return s[:size], s[size:]
			}
			return s[:i], s[i:]
		}
		used += rw
	}
	return s, ""
}

func piecesWidth(ps []piece) int {
	n := 0
	for _, p := range ps {
		n += p.w
	}
	return n
}

// draw turns a line's pieces into a string with escape sequences, one
// pair per stretch of one look.
func draw(b *strings.Builder, ps []piece, lk *looks) {
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].look == ps[i].look {
			j++
		}
		n := 0
		for _, p := range ps[i:j] {
			n += len(p.text)
		}
		if n > 0 {
			q := lk.get(ps[i].look)
			b.WriteString(q.open)
			for _, p := range ps[i:j] {
				b.WriteString(p.text)
			}
			b.WriteString(q.close)
		}
		i = j
	}
}
