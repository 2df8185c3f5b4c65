package config

import "testing"

// TestBOMKeepsLines: a file that starts with a UTF-8 byte order mark loads,
// and its problems carry the lines and columns an editor shows. (Before:
// a problem after a BOM had line 0.)
func TestBOMKeepsLines(t *testing.T) {
	cases := []struct {
		name, content string
		line, col     int
		kind          Kind
	}{
		{"bad value", "\uFEFF[engine]\nworkers = 0\n", 2, 1, KindValue},
		{"unknown key on line 1", "\uFEFFworkerz = 2\n", 1, 1, KindUnknown},
		{"syntax", "\uFEFF[ui]\ntheme = \n", 2, 9, KindSyntax},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.writeUser(c.content)
			ps := f.loadErr().Problems
			if len(ps) != 1 || ps[0].Line != c.line || ps[0].Col != c.col || ps[0].Kind != c.kind {
				t.Errorf("problems %+v, want one %s at %d:%d", ps, c.kind, c.line, c.col)
			}
		})
	}
	f := newFixture(t)
	f.writeUser("\uFEFF[engine]\nworkers = 3\n")
	if cfg := f.load(); cfg.Engine.Workers != 3 {
		t.Errorf("workers %d", cfg.Engine.Workers)
	}
	if file, line := f.load().Source("engine.workers"); file != f.user || line != 2 {
		t.Errorf("engine.workers from %s:%d", file, line)
	}
}

// TestNewErrorOrders: problems found outside Load are ordered as Load's.
func TestNewErrorOrders(t *testing.T) {
	ps := []Problem{{File: "a", Line: 9}, {File: "b", Line: 1}, {File: "a", Line: 2}}
	e := NewError(ps)
	if e.Problems[0].Line != 2 || e.Problems[1].Line != 9 || e.Problems[2].File != "b" || ps[0].Line != 9 {
		t.Errorf("NewError: %+v (input %+v)", e.Problems, ps)
	}
}
