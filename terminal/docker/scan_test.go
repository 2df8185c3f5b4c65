package docker

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// scanner collects everything read from r in the background so a test can
// wait for text to appear.
type scanner struct {
	mu  sync.Mutex
	buf strings.Builder
	eof bool
}

func newScanner(r io.Reader) *scanner {
	s := &scanner{}
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

func (s *scanner) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
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
	t.Fatalf("no %q within 10s; got %q", text, s.buf.String())
}
