package terminal

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCaptureCap(t *testing.T) {
	tests := []struct {
		name      string
		writes    []string
		max       int
		want      string
		truncated bool
	}{
		{"under the cap", []string{"abc", "def"}, 10, "abcdef", false},
		{"exactly the cap", []string{"0123456789"}, 10, "0123456789", false},
		{"head and tail kept", []string{"01234", "56789", "abcde"}, 10, "01234\n[... 5 bytes omitted ...]\nabcde", true},
		{"many small writes", strings.Split(strings.Repeat("x", 50)+"END", ""), 10, "xxxxx\n[... 43 bytes omitted ...]\nxxEND", true},
		{"cut on character boundaries", []string{"ééé" + strings.Repeat("-", 20) + "ééé"}, 10, "éé\n[... 24 bytes omitted ...]\néé", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCapture(ExecRequest{MaxOutput: tc.max})
			w := c.Writer(Stdout)
			for _, s := range tc.writes {
				if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
					t.Fatalf("write %q: %d, %v", s, n, err)
				}
			}
			var r ExecResult
			c.Fill(&r)
			if r.Stdout != tc.want || r.StdoutTruncated != tc.truncated || !utf8.ValidString(r.Stdout) {
				t.Fatalf("got %q (truncated %v), want %q (%v)", r.Stdout, r.StdoutTruncated, tc.want, tc.truncated)
			}
		})
	}
}
