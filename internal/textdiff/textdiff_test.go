package textdiff

import (
	"strings"
	"testing"
)

func TestScriptAndUnified(t *testing.T) {
	cases := []struct {
		name string
		a, b string
		want string
	}{
		{"same", "a\nb", "a\nb", ""},
		{"one changed", "a\nb\nc", "a\nB\nc", "--- x\n+++ y\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"added at the end", "a", "a\nb", "--- x\n+++ y\n@@ -1,1 +1,2 @@\n a\n+b\n"},
		{"removed at the start", "a\nb", "b", "--- x\n+++ y\n@@ -1,2 +1,1 @@\n-a\n b\n"},
		{"from nothing", "", "a", "--- x\n+++ y\n@@ -1,1 +1,1 @@\n-\n+a\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Unified("x", "y", strings.Split(c.a, "\n"), strings.Split(c.b, "\n"), 3)
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
	// Two changes far apart make two hunks; the script is minimal.
	var a, b []string
	for i := range 40 {
		a = append(a, "l"+itoa(i))
		b = append(b, "l"+itoa(i))
	}
	b[3], b[30] = "x", "y"
	u := Unified("a", "b", a, b, 3)
	if strings.Count(u, "@@ ") != 2 || strings.Count(u, "\n-") != 2 || strings.Count(u, "\n+") != 3 {
		t.Errorf("two hunks expected:\n%s", u)
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
