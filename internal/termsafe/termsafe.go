package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// String returns s without control sequences and control characters (see
// the package documentation).
func String(s string) string {
	if clean(s) {
		return s
	}
	var st Stream
	return st.Write(s) + st.Flush()
}

// clean reports whether s is printable ASCII, newlines and tabs only: the
// common case, passed through as it is.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// state is where a Stream is in the text: in plain text, or inside an
// escape sequence being dropped.
type state uint8

const (
	ground   state = iota // plain text
	escape                // after ESC
	escInter              // after ESC and intermediate bytes: waiting for the final byte
	csi                   // a control sequence: parameters and intermediates up to a final byte
	str                   // OSC, DCS, SOS, PM or APC: a string up to BEL or ST
	strEsc                // ESC inside a string: ST when a backslash follows
)

// The control characters the parser acts on.
const (
	bel = 0x07
	can = 0x18 // cancels a sequence
	sub = 0x1a // cancels a sequence
	esc = 0x1b
	del = 0x7f
)

// Stream makes text that arrives in pieces (an agent's streamed deltas)
// safe to print, keeping its state between pieces: a sequence cut between
// two pieces is dropped whole, a character cut between two is held back
// until its end comes. Flush gives back what it holds at the end of the
// text. The zero value is ready to use; a Stream is not safe for
// concurrent use.
type Stream struct {
	st   state
	cr   bool   // a carriage return held back: printed only before a newline
	part string // the start of a UTF-8 character cut at the end of a piece
}

// Write returns what of piece (after what the stream holds) is safe to
// print now.
func (s *Stream) Write(piece string) string {
	text := piece
	if s.part != "" {
		text, s.part = s.part+piece, ""
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		i += s.step(&b, text, i)
	}
	return b.String()
}

// Flush ends the text: a character left incomplete becomes U+FFFD, a
// sequence left open and a carriage return held back are dropped. The
// stream is then ready for a new text.
func (s *Stream) Flush() string {
	out := ""
	if s.part != "" {
		out = string(utf8.RuneError)
	}
	*s = Stream{}
	return out
}

// step handles the text at i and returns how many bytes it used (0 only
// when it changed state and the byte must be read again in the new one).
func (s *Stream) step(b *strings.Builder, text string, i int) int {
	c := text[i]
	switch s.st {
	case ground:
		return s.plain(b, text, i)
	case escape:
		return s.afterEsc(c)
	case escInter, csi:
		return s.inSequence(c)
	}
	return s.inString(text, i)
}

// plain handles a byte of plain text.
func (s *Stream) plain(b *strings.Builder, text string, i int) int {
	c := text[i]
	if s.cr {
		s.cr = false
		if c == '\n' {
			b.WriteByte('\r')
		}
	}
	switch {
	case c == '\n' || c == '\t' || (c >= 0x20 && c < del):
		b.WriteByte(c)
	case c == '\r':
		s.cr = true
	case c == esc:
		s.st = escape
	case c < 0x80:
		// another C0 control, or DEL: dropped
	default:
		return s.nonASCII(b, text, i)
	}
	return 1
}

// nonASCII handles a byte of 0x80 or more in plain text: a character, the
// start of one cut at the end of the piece, an invalid byte, or a C1
// control.
func (s *Stream) nonASCII(b *strings.Builder, text string, i int) int {
	r, n := utf8.DecodeRuneInString(text[i:])
	switch {
	case r == utf8.RuneError && n <= 1 && !utf8.FullRuneInString(text[i:]):
		s.part = text[i:] // the rest comes with the next piece
		return len(text) - i
	case r == utf8.RuneError && n <= 1:
		b.WriteRune(utf8.RuneError)
	case r >= 0x80 && r <= 0x9f:
		s.c1(r)
	default:
		b.WriteString(text[i : i+n])
	}
	return n
}

// c1 handles a C1 control: the 8-bit forms of CSI and of the string
// introducers open the sequence they introduce (dropped like their ESC
// forms); the others are dropped alone.
func (s *Stream) c1(r rune) {
	switch r {
	case 0x9b: // CSI
		s.st = csi
	case 0x90, 0x98, 0x9d, 0x9e, 0x9f: // DCS, SOS, OSC, PM, APC
		s.st = str
	}
}

// afterEsc handles the byte after ESC.
func (s *Stream) afterEsc(c byte) int {
	switch {
	case c == '[':
		s.st = csi
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		s.st = str
	case c >= 0x20 && c <= 0x2f:
		s.st = escInter
	case c >= 0x30 && c < del:
		s.st = ground // a two-byte sequence (ESC 7, ESC c...): done
	case c == can || c == sub:
		s.st = ground
	case c >= 0x80:
		s.st = ground
		return 0 // not a sequence after all: read the byte as text
	}
	// ESC again, another control, DEL: still waiting
	return 1
}

// inSequence handles a byte of a control sequence or of an ESC sequence
// with intermediates: it ends at a final byte.
func (s *Stream) inSequence(c byte) int {
	final := byte(0x40) // CSI's final bytes are 0x40-0x7e
	if s.st == escInter {
		final = 0x30 // an ESC sequence's are 0x30-0x7e
	}
	switch {
	case c >= final && c < del:
		s.st = ground
	case c == esc:
		s.st = escape
	case c == can || c == sub:
		s.st = ground
	case c >= 0x80:
		s.st = ground
		return 0
	}
	// parameters, intermediates, controls: part of the sequence
	return 1
}

// inString handles a byte of an OSC, DCS, SOS, PM or APC string, which
// ends at BEL or ST (ESC \ or its 8-bit form) and takes anything else.
func (s *Stream) inString(text string, i int) int {
	c := text[i]
	if s.st == strEsc {
		if c == '\\' {
			s.st = ground
			return 1
		}
		// ESC ends the string and starts a new sequence.
		s.st = escape
		return 0
	}
	switch {
	case c == bel || c == can || c == sub || c == 0x9c:
		s.st = ground
	case c == esc:
		s.st = strEsc
	case c == 0xc2 && i+1 < len(text) && text[i+1] == 0x9c: // ST as UTF-8
		s.st = ground
		return 2
	}
	return 1
}

// Writer writes to another writer what is safe to print of each Write
// (see String). Every Write stands alone: a sequence left open at its end
// is dropped, so untrusted text in one write cannot swallow the next one,
// and a character cut at its end becomes U+FFFD. Write whole lines or
// whole strings; text that arrives in pieces goes through a Stream first.
type Writer struct {
	w io.Writer
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes the safe form of p. It reports len(p) when that was written
// whole, however much shorter it was.
func (w *Writer) Write(p []byte) (int, error) {
	s := string(p)
	if _, err := io.WriteString(w.w, String(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// JSON returns JSON text b with the characters JSON leaves raw that a
// terminal may obey, DEL and the C1 controls, written as \u escapes; the
// text means the same. encoding/json's output is assumed: valid UTF-8, the
// C0 controls already escaped. b is returned as it is when it has none.
func JSON(b []byte) []byte {
	n := 0
	for i := 0; i < len(b); i++ {
		if b[i] == del || (b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f) {
			n++
		}
	}
	if n == 0 {
		return b
	}
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(b)+5*n)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
			i++
			c = b[i] // U+0080-U+009F: the second byte is the code point
		} else if c != del {
			out = append(out, c)
			continue
		}
		out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
	}
	return out
}

// JSONWriter writes JSON text to another writer with JSON applied to each
// Write: write whole JSON values (as json.Encoder does).
type JSONWriter struct {
	w io.Writer
}

// NewJSONWriter returns a JSONWriter that writes to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Write writes p with its DEL and C1 characters escaped, and reports
// len(p) when that was written whole.
func (w *JSONWriter) Write(p []byte) (int, error) {
	if _, err := w.w.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Visible returns s with every control character written as an escape
// (\x1b, \x07, \u009b) and every invalid byte as \xNN, newlines, tabs and
// the carriage return of a CRLF kept: for text the operator must see whole rather than cleaned, such as
// a file they are asked to trust, where a dropped sequence could hide what
// follows it.
func Visible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t' || (r == '\r' && strings.HasPrefix(s[i+1:], "\n")):
			b.WriteRune(r)
		case r < 0x20 || r == del:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
