package harness

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"short", "héllo", 10, "héllo"},
		{"exact", "héllo", 6, "héllo"},
		{"ascii cut", "hello world", 5, "hello…"},
		{"inside a two-byte rune", "héllo", 2, "h…"},
		{"after a two-byte rune", "héllo", 3, "hé…"},
		{"inside a four-byte rune", "a😀b", 3, "a…"},
		{"zero", "héllo", 0, "…"},
		{"invalid bytes kept short", "a\xffb", 10, "a\uFFFDb"},
		{"invalid bytes cut", "a\xff\xfeb c d", 3, "a\uFFFD…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clip(tt.s, tt.n); got != tt.want {
				t.Errorf("Clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
		})
	}
}

// TestClipEveryCut: whatever the cut, the result is valid UTF-8, no longer
// than n bytes before the mark, and a prefix of the input.
func TestClipEveryCut(t *testing.T) {
	s := "añ€😀b" + strings.Repeat("ü", 5)
	for n := 0; n <= len(s)+1; n++ {
		got := Clip(s, n)
		if !utf8.ValidString(got) {
			t.Fatalf("Clip(%q, %d) = %q: not UTF-8", s, n, got)
		}
		body := strings.TrimSuffix(got, "…")
		if len(body) > n || !strings.HasPrefix(s, body) {
			t.Fatalf("Clip(%q, %d) = %q", s, n, got)
		}
	}
}
