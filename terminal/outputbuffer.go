package terminal

import (
	"sync"
)

// Default bounds of an OutputBuffer.
const (
	DefaultOutputLines     = 10000
	DefaultOutputLineBytes = 16 << 10
)

// OutputBuffer keeps a command's output as text lines for display: colour
// (SGR) sequences are kept, other escape sequences and control characters
// are dropped, a carriage return starts its line over (so progress bars show
// their last state), and both the number of lines and the length of a line
// are bounded, the oldest lines going first. It is an io.Writer and is safe
// for concurrent use. It is meant for agent tool output, which is text, not a
// screen: no terminal emulator is involved.
type OutputBuffer struct {
	mu       sync.Mutex
	maxLines int
	maxBytes int
	lines    []string // a ring of the last maxLines complete lines
	first    int      // index in lines of the oldest line
	partial  []byte   // the line being written
	clipped  bool     // partial reached maxBytes
	dropped  int64
	version  uint64
	esc      escState
	seq      []byte // the escape sequence being read
	cr       bool   // a carriage return waits for its next byte
}

type escState uint8

const (
	escNone      escState = iota
	escStart              // ESC seen
	escCSI                // ESC [ seen
	escString             // in an OSC, DCS, APC, PM or SOS string
	escStringEsc          // ESC seen inside such a string
)

// NewOutputBuffer returns a buffer that keeps at most maxLines lines of at
// most maxLineBytes bytes each; zero or less means the defaults.
func NewOutputBuffer(maxLines, maxLineBytes int) *OutputBuffer {
	if maxLines <= 0 {
		maxLines = DefaultOutputLines
	}
	if maxLineBytes <= 0 {
		maxLineBytes = DefaultOutputLineBytes
	}
	return &OutputBuffer{maxLines: maxLines, maxBytes: maxLineBytes}
}

// Write adds output; it never fails.
func (b *OutputBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range p {
		b.feed(c)
	}
	if len(p) > 0 {
		b.version++
	}
	return len(p), nil
}

// WriteString adds output given as a string.
func (b *OutputBuffer) WriteString(s string) (int, error) {
	return b.Write([]byte(s))
}

func (b *OutputBuffer) feed(c byte) {
	switch b.esc {
	case escStart:
		switch c {
		case '[':
			b.esc = escCSI
			b.seq = append(b.seq, c)
		case ']', 'P', '_', '^', 'X':
			b.esc = escString
		default:
			b.esc = escNone
		}
		return
	case escCSI:
		b.seq = append(b.seq, c)
		if c >= 0x40 && c <= 0x7e {
			if c == 'm' {
				b.add(b.seq...)
			}
			b.esc, b.seq = escNone, b.seq[:0]
		} else if len(b.seq) > 64 {
			b.esc, b.seq = escNone, b.seq[:0]
		}
		return
	case escString:
		if c == 0x07 {
			b.esc = escNone
		} else if c == 0x1b {
			b.esc = escStringEsc
		}
		return
	case escStringEsc:
		b.esc = escNone
		if c != '\\' {
			b.esc = escString
		}
		return
	}
	if b.cr {
		b.cr = false
		if c != '\n' {
			b.partial, b.clipped = b.partial[:0], false
		}
	}
	switch {
	case c == '\n':
		b.endLine()
	case c == '\r':
		b.cr = true
	case c == 0x1b:
		b.esc, b.seq = escStart, append(b.seq[:0], c)
	case c == '\t' || c >= 0x20 && c != 0x7f:
		b.add(c)
	}
}

func (b *OutputBuffer) add(p ...byte) {
	if b.clipped {
		return
	}
	if len(b.partial)+len(p) > b.maxBytes {
		b.partial = append(b.partial, "…"...)
		b.clipped = true
		return
	}
	b.partial = append(b.partial, p...)
}

func (b *OutputBuffer) endLine() {
	line := string(b.partial)
	b.partial, b.clipped = b.partial[:0], false
	if len(b.lines) < b.maxLines {
		b.lines = append(b.lines, line)
		return
	}
	b.lines[b.first] = line
	b.first = (b.first + 1) % b.maxLines
	b.dropped++
}

// Lines returns the kept lines, oldest first, with the unfinished last line
// when there is one.
func (b *OutputBuffer) Lines() []string {
	return b.Tail(-1)
}

// Tail returns at most the last n lines (all of them when n < 0), with the
// unfinished last line when there is one.
func (b *OutputBuffer) Tail(n int) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	total := len(b.lines)
	if len(b.partial) > 0 {
		total++
	}
	if n < 0 || n > total {
		n = total
	}
	out := make([]string, 0, n)
	for i := total - n; i < len(b.lines); i++ {
		out = append(out, b.lines[(b.first+i)%len(b.lines)])
	}
	if len(b.partial) > 0 && n > 0 {
		out = append(out, string(b.partial))
	}
	return out
}

// Dropped is the number of old lines let go to stay within the bound.
func (b *OutputBuffer) Dropped() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped
}

// Version changes whenever output is written, so a view can skip redrawing
// an unchanged buffer.
func (b *OutputBuffer) Version() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.version
}
