package harness

import (
	"io"
	"strings"
	"sync"
	"time"
)

// DefaultTailSize is how much of an agent CLI's stderr adapters keep for
// the errors that report how the CLI ended.
const DefaultTailSize = 4 << 10

// Tail keeps the last Max bytes written to it (DefaultTailSize when Max is
// zero): an agent CLI's stderr, whose end says why it failed. It is safe
// for concurrent use.
type Tail struct {
	Max int

	mu      sync.Mutex
	buf     []byte
	drained chan struct{} // closed when Drain returns; made on first use
	ended   bool
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
	defer t.markDrained()
	if src != nil {
		_, _ = io.Copy(t, src)
	}
}

// Settle waits until Drain has read its source to the end, or grace has
// passed. Call it once the process has exited and before String: the
// process's last words can still be in the pipe when its exit is seen,
// and an error that explains an exit would go without them. The grace
// bounds the wait when a child of the process keeps the pipe open.
func (t *Tail) Settle(grace time.Duration) {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-t.drainedChan():
	case <-timer.C:
	}
}

func (t *Tail) drainedChan() chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.drained == nil {
		t.drained = make(chan struct{})
	}
	return t.drained
}

func (t *Tail) markDrained() {
	ch := t.drainedChan()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ended {
		t.ended = true
		close(ch)
	}
}
