package terminal

import (
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// Capture collects a command's stdout and stderr for its ExecResult, each
// capped at the request's MaxOutput, and forwards every piece to the
// request's OnChunk as it arrives. Environments feed it through Writer; its
// writers are safe for concurrent use and never fail, so a command is never
// held up by a full capture.
type Capture struct {
	mu      sync.Mutex
	onChunk func(Chunk)
	streams [2]capped
}

// NewCapture returns a Capture for req's cap and chunk callback.
func NewCapture(req ExecRequest) *Capture {
	limit := req.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	c := &Capture{onChunk: req.OnChunk}
	for i := range c.streams {
		c.streams[i] = newCapped(limit)
	}
	return c
}

// Writer returns the writer for one stream.
func (c *Capture) Writer(s Stream) io.Writer {
	if s == Stderr {
		return captureWriter{c, Stderr, 1}
	}
	return captureWriter{c, Stdout, 0}
}

// Fill sets the output fields of r from what was captured.
func (c *Capture) Fill(r *ExecResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r.Stdout, r.StdoutTruncated = c.streams[0].text()
	r.Stderr, r.StderrTruncated = c.streams[1].text()
}

type captureWriter struct {
	c      *Capture
	stream Stream
	i      int
}

func (w captureWriter) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	w.c.streams[w.i].write(p)
	if w.c.onChunk != nil && len(p) > 0 {
		w.c.onChunk(Chunk{Stream: w.stream, Data: p})
	}
	return len(p), nil
}

// capped keeps the first half of its limit and the last half of a stream.
type capped struct {
	headMax, tailMax int
	head             []byte
	tail             []byte // the last tailMax bytes live at its end
	total            int64
}

func newCapped(limit int) capped {
	h := limit / 2
	return capped{headMax: h, tailMax: limit - h}
}

func (c *capped) write(p []byte) {
	c.total += int64(len(p))
	if room := c.headMax - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	if len(p) == 0 {
		return
	}
	if len(p) >= c.tailMax {
		c.tail = append(c.tail[:0], p[len(p)-c.tailMax:]...)
		return
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.tailMax {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.tailMax:]...)
	}
}

// text returns the kept output and whether some was left out; the cut is
// marked in the text and falls on character boundaries.
func (c *capped) text() (string, bool) {
	tail := c.tail
	if len(tail) > c.tailMax {
		tail = tail[len(tail)-c.tailMax:]
	}
	kept := int64(len(c.head) + len(tail))
	if kept == c.total {
		return string(c.head) + string(tail), false
	}
	head := c.head
	for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
		if utf8.RuneStart(head[i]) {
			if !utf8.FullRune(head[i:]) {
				head = head[:i]
			}
			break
		}
	}
	for i := 0; i < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	omitted := c.total - int64(len(head)+len(tail))
	return fmt.Sprintf("%s\n[... %d bytes omitted ...]\n%s", head, omitted, tail), true
}
