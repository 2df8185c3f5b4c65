package harness

import (
	"strings"
	"testing"
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
