package terminal

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestOutputBuffer(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		lines  int
		want   []string
	}{
		{"lines and a partial one", []string{"a\nb\nc"}, 10, []string{"a", "b", "c"}},
		{"colour kept", []string{"\x1b[31mred\x1b[0m ok\n"}, 10, []string{"\x1b[31mred\x1b[0m ok"}},
		{"cursor moves and titles dropped", []string{"x\x1b[2K\x1b[1Ay\x1b]0;title\x07z\x1b]8;;u\x1b\\w\n"}, 10, []string{"xyzw"}},
		{"sequence split across writes", []string{"\x1b[3", "2mg\x1b", "[0m\n"}, 10, []string{"\x1b[32mg\x1b[0m"}},
		{"CRLF is one newline", []string{"a\r", "\nb\r\n"}, 10, []string{"a", "b"}},
		{"carriage return starts over", []string{"10%\r50%\r100%\n"}, 10, []string{"100%"}},
		{"controls dropped, tab kept", []string{"a\x07\tb\x08\n"}, 10, []string{"a\tb"}},
		{"oldest lines go", []string{"1\n2\n3\n4\n"}, 2, []string{"3", "4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewOutputBuffer(tc.lines, 0)
			for _, w := range tc.writes {
				b.WriteString(w)
			}
			if got := b.Lines(); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOutputBufferBounds(t *testing.T) {
	b := NewOutputBuffer(100, 10)
	v := b.Version()
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(b, "line %d %s\n", i, strings.Repeat("x", i%30))
	}
	if b.Version() == v {
		t.Fatal("version did not change")
	}
	lines := b.Lines()
	if len(lines) != 100 || b.Dropped() != 900 {
		t.Fatalf("kept %d lines, dropped %d", len(lines), b.Dropped())
	}
	if !strings.HasPrefix(lines[99], "line 999") {
		t.Fatalf("last line %q", lines[99])
	}
	for _, l := range lines {
		if len(l) > 10+len("…") {
			t.Fatalf("line %q over the cap", l)
		}
	}
	if got := b.Tail(2); len(got) != 2 || got[1] != lines[99] {
		t.Fatalf("tail %q", got)
	}
}

func BenchmarkOutputBuffer(b *testing.B) {
	chunk := []byte(strings.Repeat("\x1b[32mok\x1b[0m  github.com/x/y/z\t0.123s\n", 100))
	buf := NewOutputBuffer(0, 0)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		buf.Write(chunk)
	}
}
