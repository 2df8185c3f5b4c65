package editor

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Pos is a place in the text: a line (from 0) and a byte offset into it,
// always on a rune boundary.
type Pos struct{ Line, Col int }

// Before reports whether p comes before q.
func (p Pos) Before(q Pos) bool { return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col }

// order returns p and q, the earlier first.
func order(p, q Pos) (Pos, Pos) {
	if q.Before(p) {
		return q, p
	}
	return p, q
}

// Buffer is text as lines, without their line breaks. It always has at
// least one line.
type Buffer struct {
	lines   []string
	version uint64 // counts changes, for caches
}

// NewBuffer returns a buffer holding text, split at "\n".
func NewBuffer(text string) *Buffer {
	return &Buffer{lines: strings.Split(text, "\n")}
}

// Len returns the number of lines.
func (b *Buffer) Len() int { return len(b.lines) }

// Line returns line i without its line break.
func (b *Buffer) Line(i int) string { return b.lines[i] }

// Lines returns a copy of lines [from, to), clamped to the buffer.
func (b *Buffer) Lines(from, to int) []string {
	from, to = max(from, 0), min(to, len(b.lines))
	if from >= to {
		return nil
	}
	return slices.Clone(b.lines[from:to])
}

// Version changes whenever the text does.
func (b *Buffer) Version() uint64 { return b.version }

// Text returns the whole text, lines joined with "\n".
func (b *Buffer) Text() string { return strings.Join(b.lines, "\n") }

// End is the position after the last character.
func (b *Buffer) End() Pos { return Pos{len(b.lines) - 1, len(b.lines[len(b.lines)-1])} }

// Clamp moves p into the text and onto a rune boundary.
func (b *Buffer) Clamp(p Pos) Pos {
	p.Line = min(max(p.Line, 0), len(b.lines)-1)
	l := b.lines[p.Line]
	p.Col = min(max(p.Col, 0), len(l))
	for p.Col > 0 && p.Col < len(l) && !utf8.RuneStart(l[p.Col]) {
		p.Col--
	}
	return p
}

// Slice returns the text between two positions.
func (b *Buffer) Slice(from, to Pos) string {
	from, to = order(b.Clamp(from), b.Clamp(to))
	if from.Line == to.Line {
		return b.lines[from.Line][from.Col:to.Col]
	}
	var sb strings.Builder
	sb.WriteString(b.lines[from.Line][from.Col:])
	for i := from.Line + 1; i < to.Line; i++ {
		sb.WriteByte('\n')
		sb.WriteString(b.lines[i])
	}
	sb.WriteByte('\n')
	sb.WriteString(b.lines[to.Line][:to.Col])
	return sb.String()
}

// Replace puts text in place of the range [from, to) and returns the
// position after the inserted text.
func (b *Buffer) Replace(from, to Pos, text string) Pos {
	from, to = order(b.Clamp(from), b.Clamp(to))
	b.version++
	prefix, suffix := b.lines[from.Line][:from.Col], b.lines[to.Line][to.Col:]
	if !strings.Contains(text, "\n") {
		b.lines[from.Line] = prefix + text + suffix
		if to.Line > from.Line {
			b.lines = slices.Delete(b.lines, from.Line+1, to.Line+1)
		}
		return Pos{from.Line, len(prefix) + len(text)}
	}
	parts := strings.Split(text, "\n")
	last := len(parts) - 1
	end := Pos{from.Line + last, len(parts[last])}
	parts[0] = prefix + parts[0]
	parts[last] += suffix
	b.lines = slices.Replace(b.lines, from.Line, to.Line+1, parts...)
	return end
}

// endOf returns where text ends when it is inserted at p.
func endOf(p Pos, text string) Pos {
	n := strings.Count(text, "\n")
	if n == 0 {
		return Pos{p.Line, p.Col + len(text)}
	}
	return Pos{p.Line + n, len(text) - strings.LastIndexByte(text, '\n') - 1}
}
