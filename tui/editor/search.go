package editor

import (
	"strings"
	"unicode"
)

// smartCase lowers text for the comparison when the query is all lower
// case: "err" finds "Err", "Err" finds only "Err".
func smartCase(query string) bool {
	for _, r := range query {
		if unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// indexIn returns the byte offsets of query's matches in line.
func indexIn(line, query string, fold bool) []int {
	if query == "" {
		return nil
	}
	if fold {
		if lower := strings.ToLower(line); len(lower) == len(line) {
			line = lower
		}
	}
	var out []int
	for off := 0; ; {
		i := strings.Index(line[off:], query)
		if i < 0 {
			return out
		}
		out = append(out, off+i)
		off += i + max(len(query), 1)
	}
}

// Find selects the next (dir 1) or previous (dir -1) match of query from
// the cursor, wrapping at the ends. It reports whether one was found.
func (e *Editor) Find(query string, dir int) bool {
	if query == "" {
		return false
	}
	fold := smartCase(query)
	if fold {
		query = strings.ToLower(query)
	}
	start := e.cur
	if from, _, ok := e.Selection(); ok && dir < 0 {
		start = from
	}
	n := e.buf.Len()
	for step := 0; step <= n; step++ {
		line := ((start.Line+dir*step)%n + n) % n
		hits := indexIn(e.buf.Line(line), query, fold)
		if dir > 0 {
			for _, h := range hits {
				if step > 0 || h > start.Col || h == start.Col && !e.isMatchAt(line, h, len(query)) {
					return e.found(line, h, len(query))
				}
			}
		} else {
			for i := len(hits) - 1; i >= 0; i-- {
				if step > 0 || hits[i] < start.Col {
					return e.found(line, hits[i], len(query))
				}
			}
		}
	}
	e.message = "not found: " + query
	return false
}

// isMatchAt reports whether the selection is the match at line:col, so
// "next" moves past it.
func (e *Editor) isMatchAt(line, col, n int) bool {
	from, to, ok := e.Selection()
	return ok && from == Pos{line, col} && to == Pos{line, col + n}
}

func (e *Editor) found(line, col, n int) bool {
	a := Pos{line, col}
	e.anchor = &a
	e.cur = Pos{line, col + n}
	e.want = e.visualCol(e.cur)
	if line < e.top || line >= e.top+e.textH() {
		e.top = max(line-e.textH()/2, 0)
	}
	e.scrollToCursor()
	e.message = ""
	return true
}
