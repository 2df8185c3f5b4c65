package expect

import (
	"io"
	"testing"
)

func TestWaitFor(t *testing.T) {
	r, w := io.Pipe()
	s := New(r)
	go func() {
		w.Write([]byte("hello "))
		w.Write([]byte("world\n"))
	}()
	s.WaitFor(t, "lo wor")
}
