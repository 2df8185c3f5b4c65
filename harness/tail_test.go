package harness

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestTailKeepsTheEnd(t *testing.T) {
	tl := &Tail{Max: 8}
	write := func(s string) {
		t.Helper()
		if n, err := tl.Write([]byte(s)); err != nil || n != len(s) {
			t.Fatalf("write %q: %d, %v", s, n, err)
		}
	}
	write("hello ")
	write("world")
	if got := tl.String(); got != "lo world" {
		t.Fatalf("tail %q", got)
	}
	write(strings.Repeat("x", 20) + "end")
	if got := tl.String(); got != "xxxxxend" {
		t.Fatalf("tail after a big write %q", got)
	}
	var d Tail
	d.Drain(strings.NewReader(strings.Repeat("a", 10000) + "\nfatal: boom\n"))
	if got := d.String(); len(got) > DefaultTailSize || !strings.HasSuffix(got, "fatal: boom") {
		t.Fatalf("drained tail ends %q (len %d)", got[len(got)-20:], len(got))
	}
}

// TestTailSettleWaitsForTheLastWords: an exit is often seen before the
// stderr reader has copied the process's last line; Settle waits for the
// reader to reach the end (and only up to its grace when the pipe stays
// open).
func TestTailSettleWaitsForTheLastWords(t *testing.T) {
	r, w := io.Pipe()
	var tail Tail
	go tail.Drain(r)
	go func() {
		time.Sleep(50 * time.Millisecond)
		_, _ = w.Write([]byte("fatal: no API key\n"))
		_ = w.Close()
	}()
	tail.Settle(10 * time.Second)
	if got := tail.String(); got != "fatal: no API key" {
		t.Errorf("after Settle the tail is %q", got)
	}
	// A pipe nobody closes: Settle returns after its grace.
	open, _ := io.Pipe()
	var stuck Tail
	go stuck.Drain(open)
	start := time.Now()
	stuck.Settle(20 * time.Millisecond)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Settle on a pipe that stays open took %s", d)
	}
}
