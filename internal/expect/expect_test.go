package expect

import (
	"io"
	"testing"
)

func TestWaitFor(t *testing.T) {
	r, w := io.Pipe()
	s := New(r)
	go func() {
		// The reader never closes the pipe, so these writes cannot fail.
		_, _ = w.Write([]byte("hello "))
		_, _ = w.Write([]byte("world\n"))
	}()
	s.WaitFor(t, "lo wor")
}
