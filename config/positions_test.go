package config

import (
	"strings"
	"testing"
)

func TestScanPositions(t *testing.T) {
	src := lines(
		`# comment with = and [brackets]`,   // 1
		`top = "a # not a comment"`,         // 2
		`[agents.local]`,                    // 3
		`  model = """`,                     // 4
		`[not.a.table]`,                     // 5
		`x = 1"""`,                          // 6
		`"quoted key" = 'lit'`,              // 7
		`dotted . key = [`,                  // 8
		`  1, # comment`,                    // 9
		`  { inner = 2 },`,                  // 10
		`]`,                                 // 11
		`[[agents.local.rules]]`,            // 12
		`tool = "exec"`,                     // 13
		`[[agents.local.rules]]`,            // 14
		`tool = "grep"`,                     // 15
		`[agents.local.env]`,                // 16
		`A = '''`,                           // 17
		`multi'''`,                          // 18
		`B = { c = { d = 1 }, e = [2, 3] }`, // 19
		`[ui]`,                              // 20
		`"a.b" = 1`,                         // 21
		`é = "x"`,                           // 22
		`   later = 1e3`,                    // 23
		`t = 1979-05-27 07:32:00Z`,          // 24
		`u = "after date"`,                  // 25
	)
	p := scanPositions(src)
	tests := []struct {
		path []string
		line int
		col  int
	}{
		{[]string{"top"}, 2, 1},
		{[]string{"agents"}, 3, 1},
		{[]string{"agents", "local"}, 3, 1},
		{[]string{"agents", "local", "model"}, 4, 3},
		{[]string{"agents", "local", "quoted key"}, 7, 1},
		{[]string{"agents", "local", "dotted"}, 8, 1},
		{[]string{"agents", "local", "dotted", "key"}, 8, 1},
		{[]string{"agents", "local", "dotted", "key", "1"}, 10, 3},
		{[]string{"agents", "local", "dotted", "key", "1", "inner"}, 10, 5},
		{[]string{"agents", "local", "rules", "0"}, 12, 1},
		{[]string{"agents", "local", "rules", "0", "tool"}, 13, 1},
		{[]string{"agents", "local", "rules", "1", "tool"}, 15, 1},
		{[]string{"agents", "local", "env", "A"}, 17, 1},
		{[]string{"agents", "local", "env", "B", "c", "d"}, 19, 13},
		{[]string{"agents", "local", "env", "B", "e", "1"}, 19, 30},
		{[]string{"ui", "a.b"}, 21, 1},
		{[]string{"ui", "é"}, 22, 1},
		{[]string{"ui", "later"}, 23, 4},
		{[]string{"ui", "u"}, 25, 1},
	}
	for _, tt := range tests {
		got := p.lookup(tt.path...)
		if got.Line != tt.line || got.Col != tt.col {
			t.Errorf("%s at %d:%d, want %d:%d", strings.Join(tt.path, "."), got.Line, got.Col, tt.line, tt.col)
		}
	}
	for _, notKey := range [][]string{{"not"}, {"x"}, {"agents", "local", "x"}, {"multi"}} {
		if at, ok := p[pathKey(notKey...)]; ok {
			t.Errorf("%v found at %v inside a string", notKey, at)
		}
	}
}

func TestLookupFallsBackToParent(t *testing.T) {
	p := scanPositions("[a]\nb = 1\n")
	if got := p.lookup("a", "b", "missing"); got.Line != 2 {
		t.Errorf("got line %d, want the parent's 2", got.Line)
	}
	if got := p.lookup("zzz"); got.Line != 0 {
		t.Errorf("unknown root at line %d, want 0", got.Line)
	}
}
