package expect

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// Timeout is how long WaitFor waits.
const Timeout = 10 * time.Second

// Reader collects everything read from a stream in the background.
type Reader struct {
	mu  sync.Mutex
	buf strings.Builder
	eof bool
}

// New starts collecting r.
func New(r io.Reader) *Reader {
	s := &Reader{}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			s.mu.Lock()
			s.buf.Write(b[:n])
			if err != nil {
				s.eof = true
			}
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// WaitFor returns once text has appeared in the stream, and fails the test
// when the stream ends first or Timeout passes.
func (s *Reader) WaitFor(t testing.TB, text string) {
	t.Helper()
	deadline := time.Now().Add(Timeout)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		got, eof := s.buf.String(), s.eof
		s.mu.Unlock()
		if strings.Contains(got, text) {
			return
		}
		if eof {
			t.Fatalf("end of output before %q; got %q", text, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Fatalf("no %q within %s; got %q", text, Timeout, s.buf.String())
}
