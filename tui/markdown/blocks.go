package markdown

import "strings"

// fence is an open code fence: its character and how many of them.
type fence struct {
	char byte
	n    int
}

// fenceOpen returns the fence a line opens, if it opens one: three or more
// backticks or tildes after at most three spaces (backtick fences take no
// backtick in their info string).
func fenceOpen(line string) (fence, bool) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 || len(trimmed) < 3 || (trimmed[0] != '`' && trimmed[0] != '~') {
		return fence{}, false
	}
	c := trimmed[0]
	n := 0
	for n < len(trimmed) && trimmed[n] == c {
		n++
	}
	if n < 3 || c == '`' && strings.IndexByte(trimmed[n:], '`') >= 0 {
		return fence{}, false
	}
	return fence{c, n}, true
}

// closes reports whether a line closes the fence: at least as many of its
// character and nothing else but spaces.
func (f fence) closes(line string) bool {
	t := strings.Trim(line, " \t\r")
	if len(t) < f.n {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] != f.char {
			return false
		}
	}
	return true
}

// blank reports whether a line holds only white space.
func blank(line string) bool { return strings.Trim(line, " \t\r") == "" }

// blockStarts returns the offsets in src, from from on, where a new
// top-level block begins: outside a code fence, a line that is not blank
// and not indented after a blank line; a fence that opens at the margin
// (it ends whatever came before it: "Here is the fix:" then the code); and
// a line at the margin after such a fence closes. from must itself be the
// start of a block (or 0), so no fence is open there. A line is judged
// only once it has its first character that is not white space, and a
// fence only once its line is complete, so a streamed line never changes
// its mind.
func blockStarts(src string, from int) []int {
	var starts []int
	var open fence
	inFence, afterBlank, afterFence := false, false, false
	for pos := from; pos < len(src); {
		end := strings.IndexByte(src[pos:], '\n')
		next, whole := len(src), end >= 0
		if whole {
			end += pos
			next = end + 1
		} else {
			end = len(src)
		}
		line := src[pos:end]
		switch {
		case inFence:
			if whole && open.closes(line) {
				inFence = false
				afterFence = line[0] == open.char // the fence was at the margin
			}
			pos = next
			continue
		case blank(line):
			afterBlank = true
			pos = next
			continue
		}
		margin := line[0] != ' ' && line[0] != '\t'
		f, opens := fenceOpen(line)
		if pos > from && margin && (afterBlank || afterFence || opens && whole) {
			starts = append(starts, pos)
		}
		if opens && whole {
			open, inFence = f, true
		}
		afterBlank, afterFence = false, false
		pos = next
	}
	return starts
}
