package syntax

import "testing"

func TestForLanguage(t *testing.T) {
	for _, name := range []string{"go", "sh", "python", "GO"} {
		if ForLanguage(name) == nil {
			t.Errorf("%q has no lexer", name)
		}
	}
	for _, name := range []string{"", "no-such-language"} {
		if ForLanguage(name) != nil {
			t.Errorf("%q should have no lexer", name)
		}
	}
}

func TestHighlighterLexesOnlyNewLines(t *testing.T) {
	h := NewHighlighter(ForLanguage("go"))
	lines := []string{"func f() {", "\treturn", "}"}
	first := h.Lines(lines, true)
	if len(first[0]) == 0 || first[0][0].Role != Keyword {
		t.Fatalf("func should be a keyword: %v", first[0])
	}
	h.lexer = nil // any further lexing would panic and come back plain
	again := h.Lines(lines, true)
	if len(again[0]) == 0 || again[0][0].Role != Keyword {
		t.Fatal("lines seen before should come from the cache, not the lexer")
	}
}
