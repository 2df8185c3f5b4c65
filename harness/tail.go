package harness

import (
	"io"
	"strings"
	"sync"
)

// DefaultTailSize is how much of an agent CLI's stderr adapters keep for
// the errors that report how the CLI ended.
const DefaultTailSize = 4 << 10

// Tail keeps the last Max bytes written to it (DefaultTailSize when Max is
// zero): an agent CLI's stderr, whose end says why it failed. It is safe
// for concurrent use.
type Tail struct {
	Max int

	mu  sync.Mutex
	buf []byte
}

// Write implements io.Writer; it never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	max := t.Max
	if max <= 0 {
		max = DefaultTailSize
	}
	n := len(p)
	if n >= max {
		t.buf = append(t.buf[:0], p[n-max:]...)
		return n, nil
	}
	if over := len(t.buf) + n - max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the kept tail, trimmed, with invalid UTF-8 (a cut through
// a character) replaced.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(t.buf), "?"))
}

// Drain copies src into the tail until it ends.
func (t *Tail) Drain(src io.Reader) {
	if src != nil {
		_, _ = io.Copy(t, src)
	}
}
