package acp

import (
	"io"
	"strings"
	"sync"
)

// tailSize is how much of the CLI's stderr is kept for error messages.
const tailSize = 4 << 10

// ring keeps the last tailSize bytes written to it.
type ring struct {
	mu  sync.Mutex
	buf []byte
}

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - tailSize; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	return len(p), nil
}

// String returns the kept tail, trimmed.
func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.TrimSpace(string(r.buf))
}

// drain copies src into the ring until it ends.
func (r *ring) drain(src io.Reader) {
	if src != nil {
		_, _ = io.Copy(r, src)
	}
}
