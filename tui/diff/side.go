package diff

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
)

// rowKind says what a row of a parsed diff is.
type rowKind uint8

const (
	rowMeta    rowKind = iota // "--- a/x", "+++ b/x", anything before the hunks
	rowHunk                   // "@@ -1,3 +1,4 @@"
	rowContext                // the same on both sides
	rowChange                 // removed on the left and/or added on the right
)

// row is one line of a diff, laid out for either mode: Old and New are
// the two sides (without their +/- marks), Has says which side has a line.
type row struct {
	kind           rowKind
	text           string // meta and hunk rows
	old, neu       string
	hasOld, hasNew bool
	oldN, newN     int // line numbers, 0 when the side has none
	oldW, newW     []Part
}

// parse lays a unified diff out as rows, pairing each run of removed
// lines with the added lines after it, line by line, and comparing each
// pair word by word.
func parse(lines []string) (rows []row, parts map[int][]Part) {
	parts = map[int][]Part{}
	oldN, newN, oldLeft, newLeft := 0, 0, 0, 0
	for i := 0; i < len(lines); {
		l := lines[i]
		inHunk := oldLeft > 0 || newLeft > 0
		switch {
		case strings.HasPrefix(l, "@@"):
			oldN, newN, oldLeft, newLeft = hunkHeader(l)
			rows = append(rows, row{kind: rowHunk, text: l})
			i++
		case !inHunk:
			rows = append(rows, row{kind: rowMeta, text: l})
			i++
		case strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+"):
			var dels, adds []string
			at := i
			for i < len(lines) && oldLeft > 0 && strings.HasPrefix(lines[i], "-") {
				dels = append(dels, lines[i][1:])
				i++
				oldLeft--
			}
			for i < len(lines) && newLeft > 0 && strings.HasPrefix(lines[i], "+") {
				adds = append(adds, lines[i][1:])
				i++
				newLeft--
			}
			if len(dels) == 0 && len(adds) == 0 { // a count the header got wrong
				rows = append(rows, row{kind: rowMeta, text: l})
				i++
				oldLeft, newLeft = 0, 0
				continue
			}
			for j := 0; j < max(len(dels), len(adds)); j++ {
				r := row{kind: rowChange}
				if j < len(dels) {
					r.old, r.hasOld, r.oldN = dels[j], true, oldN
					oldN++
				}
				if j < len(adds) {
					r.neu, r.hasNew, r.newN = adds[j], true, newN
					newN++
				}
				if r.hasOld && r.hasNew {
					r.oldW, r.newW = Words(r.old, r.neu)
					parts[at+j], parts[at+len(dels)+j] = r.oldW, r.newW
				}
				rows = append(rows, r)
			}
		default:
			text := strings.TrimPrefix(l, " ")
			rows = append(rows, row{kind: rowContext, old: text, neu: text, hasOld: true, hasNew: true, oldN: oldN, newN: newN})
			oldN++
			newN++
			oldLeft--
			newLeft--
			i++
		}
	}
	return rows, parts
}

// hunkHeader reads a hunk header: the first old and new line numbers and
// how many lines of each the hunk holds.
func hunkHeader(h string) (oldN, newN, oldC, newC int) {
	f := strings.Fields(h)
	if len(f) < 3 {
		return 1, 1, 0, 0
	}
	num := func(s string) (int, int) {
		s = strings.TrimLeft(s, "-+")
		start, count, ok := strings.Cut(s, ",")
		n, _ := strconv.Atoi(start)
		c := 1
		if ok {
			c, _ = strconv.Atoi(count)
		}
		return max(n, 1), c
	}
	oldN, oldC = num(f[1])
	newN, newC = num(f[2])
	return oldN, newN, oldC, newC
}

// sideBySide draws row r as two columns of width w each, separated by a
// bar: old on the left, new on the right.
func sideBySide(st themes.Styles, r row, w int) string {
	switch r.kind {
	case rowMeta:
		return st.DiffMeta.Render(ansi.Truncate(r.text, 2*w+3, "…"))
	case rowHunk:
		return st.DiffHunk.Render(ansi.Truncate(r.text, 2*w+3, "…"))
	}
	left := side(st, r.old, r.oldN, r.hasOld, r.kind == rowChange, r.oldW, false, w)
	right := side(st, r.neu, r.newN, r.hasNew, r.kind == rowChange, r.newW, true, w)
	return left + st.Subtle.Render(" │ ") + right
}

// numW is the width of the line numbers in side-by-side mode.
const numW = 4

func side(st themes.Styles, text string, n int, has, changed bool, parts []Part, added bool, w int) string {
	if !has {
		return strings.Repeat(" ", w)
	}
	num := strconv.Itoa(n)
	if len(num) > numW {
		num = num[len(num)-numW:]
	}
	gutter := st.Subtle.Render(strings.Repeat(" ", numW-len(num)) + num + " ")
	room := max(w-numW-1, 1)
	text = ansi.Truncate(expand(text), room, "…")
	var body string
	base, word := st.Base, st.Base
	if changed {
		base, word = st.DiffDel, st.DiffDelWord
		if added {
			base, word = st.DiffAdd, st.DiffAddWord
		}
	}
	if parts != nil && ansi.StringWidth(expand(text)) <= room && !strings.HasSuffix(text, "…") {
		body = renderParts(expandParts(parts), base, word)
	} else {
		body = base.Render(text)
	}
	return gutter + body + strings.Repeat(" ", max(room-ansi.StringWidth(text), 0))
}

func expand(s string) string { return strings.ReplaceAll(ansi.Strip(s), "\t", "    ") }

func expandParts(ps []Part) []Part {
	out := make([]Part, len(ps))
	for i, p := range ps {
		out[i] = Part{expand(p.Text), p.Changed}
	}
	return out
}
