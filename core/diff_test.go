package core

import "testing"

func TestUnifiedDiff(t *testing.T) {
	cases := []struct{ name, old, neu, want string }{
		{"same", "a\n", "a\n", ""},
		{"new file", "", "x\ny\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"deleted", "x\n", "", "--- a/f\n+++ b/f\n@@ -1,1 +0,0 @@\n-x\n"},
		{"edited", "a\nb\nc\n", "a\nB\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
	}
	for _, c := range cases {
		if got := UnifiedDiff("f", c.old, c.neu); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
