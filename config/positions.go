package config

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// pos is a place in a file: 1-based line and column (in characters). A zero
// line means the place is unknown.
type pos struct {
	Line, Col int
}

// positions maps a key path to where its key is written. Paths are the key's
// segments joined by pathSep; elements of arrays (of tables, or inline) add
// their index as a segment, so the second [[agents.x.rules]] table is
// "agents␟x␟rules␟1".
//
// BurntSushi/toml keeps key positions private, and keeps only one per key
// string (array-of-table elements overwrite each other), so we find them
// ourselves with this small scanner. It runs only on text the TOML parser
// has accepted; on anything else it still terminates and never panics, but
// its answers are best effort.
type positions map[string]pos

const pathSep = "\x1f"

func pathKey(segs ...string) string { return strings.Join(segs, pathSep) }

// lookup returns the position of path, or of its nearest ancestor that has
// one (a key inside an inline table written on one line, say).
func (p positions) lookup(segs ...string) pos {
	for n := len(segs); n > 0; n-- {
		if at, ok := p[pathKey(segs[:n]...)]; ok {
			return at
		}
	}
	return pos{}
}

type keyScanner struct {
	src       string
	i         int
	lineStart []int
	out       positions
	arrays    map[string]int // array-of-tables path → elements seen
}

// scanPositions finds the position of every key and table header in src.
func scanPositions(src string) positions {
	s := &keyScanner{src: src, out: positions{}, arrays: map[string]int{}}
	s.lineStart = lineStarts(src)
	s.document()
	return s.out
}

// lineStarts returns the byte offset of each line's start.
func lineStarts(src string) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func (s *keyScanner) posAt(off int) pos {
	lo, hi := 0, len(s.lineStart)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.lineStart[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	start := s.lineStart[lo]
	if off > len(s.src) {
		off = len(s.src)
	}
	return pos{Line: lo + 1, Col: utf8.RuneCountInString(s.src[start:off]) + 1}
}

func (s *keyScanner) eof() bool  { return s.i >= len(s.src) }
func (s *keyScanner) peek() byte { return s.src[s.i] }

func (s *keyScanner) record(path []string, off int) {
	k := pathKey(path...)
	if _, ok := s.out[k]; !ok {
		s.out[k] = s.posAt(off)
	}
}

// skipSpace skips blanks, and with newlines also line ends and comments.
func (s *keyScanner) skipSpace(newlines bool) {
	for !s.eof() {
		switch c := s.peek(); {
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
		case c == '#':
			for !s.eof() && s.peek() != '\n' {
				s.i++
			}
		case c == '\n' && newlines:
			s.i++
		default:
			return
		}
	}
}

func (s *keyScanner) skipLine() {
	for !s.eof() && s.peek() != '\n' {
		s.i++
	}
}

func (s *keyScanner) document() {
	var table []string
	for {
		s.skipSpace(true)
		if s.eof() {
			return
		}
		start := s.i
		if s.peek() == '[' {
			array := strings.HasPrefix(s.src[s.i:], "[[")
			if array {
				s.i += 2
			} else {
				s.i++
			}
			key := s.key()
			table = s.header(key, array, start)
			s.skipLine()
			continue
		}
		key := s.key()
		if len(key) == 0 {
			s.skipLine() // not a key: skip, never loop on it
			continue
		}
		s.keyValue(table, key, start)
	}
}

// header resolves a table header to its indexed path and records it.
func (s *keyScanner) header(key []string, array bool, off int) []string {
	var path []string
	for n, seg := range key {
		path = append(path, seg)
		plain := pathKey(path...)
		if n == len(key)-1 && array {
			idx := s.arrays[plain]
			s.arrays[plain] = idx + 1
			s.record(path, off)
			path = append(path, strconv.Itoa(idx))
		} else if cnt, ok := s.arrays[plain]; ok && cnt > 0 {
			path = append(path, strconv.Itoa(cnt-1))
		}
		s.record(path, off)
	}
	return path
}

func (s *keyScanner) keyValue(table, key []string, off int) {
	path := append(append([]string{}, table...), key...)
	for n := len(table) + 1; n <= len(path); n++ {
		s.record(path[:n], off)
	}
	s.skipSpace(false)
	if s.eof() || s.peek() != '=' {
		s.skipLine()
		return
	}
	s.i++
	s.skipSpace(false)
	s.value(path)
}

// key reads a dotted key, bare or quoted segments, up to '=' or ']'.
func (s *keyScanner) key() []string {
	var segs []string
	for {
		s.skipSpace(false)
		if s.eof() {
			return segs
		}
		switch s.peek() {
		case '"':
			segs = append(segs, s.basicKey())
		case '\'':
			s.i++
			j := strings.IndexAny(s.src[s.i:], "'\n")
			if j < 0 {
				j = len(s.src) - s.i
			}
			segs = append(segs, s.src[s.i:s.i+j])
			s.i += j
			if !s.eof() && s.peek() == '\'' {
				s.i++
			}
		default:
			j := s.i
			for j < len(s.src) && !strings.ContainsRune(" \t\r\n=.[]#\"'{},", rune(s.src[j])) {
				j++
			}
			if j == s.i {
				return segs
			}
			segs = append(segs, s.src[s.i:j])
			s.i = j
		}
		s.skipSpace(false)
		if s.eof() || s.peek() != '.' {
			return segs
		}
		s.i++
	}
}

func (s *keyScanner) basicKey() string {
	start := s.i
	s.i++
	for !s.eof() && s.peek() != '"' && s.peek() != '\n' {
		if s.peek() == '\\' {
			s.i++
		}
		s.i++
	}
	if !s.eof() && s.peek() == '"' {
		s.i++
	}
	if s.i > len(s.src) {
		s.i = len(s.src)
	}
	raw := s.src[start:s.i]
	if u, err := strconv.Unquote(raw); err == nil {
		return u
	}
	return strings.Trim(raw, `"`)
}

func (s *keyScanner) value(path []string) {
	if s.eof() {
		return
	}
	rest := s.src[s.i:]
	switch {
	case strings.HasPrefix(rest, `"""`):
		s.multiline(`"""`, true)
	case strings.HasPrefix(rest, `'''`):
		s.multiline(`'''`, false)
	case rest[0] == '"':
		s.i++
		for !s.eof() && s.peek() != '"' && s.peek() != '\n' {
			if s.peek() == '\\' {
				s.i++
			}
			s.i++
		}
		s.i++
	case rest[0] == '\'':
		s.i++
		for !s.eof() && s.peek() != '\'' && s.peek() != '\n' {
			s.i++
		}
		s.i++
	case rest[0] == '[':
		s.i++
		s.array(path)
	case rest[0] == '{':
		s.i++
		s.inlineTable(path)
	default:
		for !s.eof() && !strings.ContainsRune(",]}#\n", rune(s.peek())) {
			s.i++
		}
	}
	if s.i > len(s.src) {
		s.i = len(s.src)
	}
}

func (s *keyScanner) multiline(delim string, escapes bool) {
	s.i += len(delim)
	for !s.eof() {
		if escapes && s.peek() == '\\' {
			s.i += 2
			continue
		}
		if strings.HasPrefix(s.src[s.i:], delim) {
			s.i += len(delim)
			for n := 0; n < 2 && !s.eof() && s.peek() == delim[0]; n++ {
				s.i++ // up to two quotes may end the content
			}
			return
		}
		s.i++
	}
}

func (s *keyScanner) array(path []string) {
	for idx := 0; ; idx++ {
		s.skipSpace(true)
		if s.eof() {
			return
		}
		if s.peek() == ']' {
			s.i++
			return
		}
		elem := append(append([]string{}, path...), strconv.Itoa(idx))
		s.record(elem, s.i)
		before := s.i
		s.value(elem)
		s.skipSpace(true)
		if !s.eof() && s.peek() == ',' {
			s.i++
		} else if s.i == before && !s.eof() {
			s.i++ // unexpected byte: step over it
		}
	}
}

func (s *keyScanner) inlineTable(path []string) {
	for {
		s.skipSpace(true)
		if s.eof() {
			return
		}
		switch s.peek() {
		case '}':
			s.i++
			return
		case ',':
			s.i++
			continue
		}
		start := s.i
		key := s.key()
		if len(key) == 0 {
			s.i++ // unexpected byte: step over it
			continue
		}
		s.keyValue(path, key, start)
	}
}
