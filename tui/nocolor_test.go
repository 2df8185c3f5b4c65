package tui

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/attach"
)

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// colours counts the SGR parameters of s that set a colour.
func colours(s string) int {
	n := 0
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			v, _ := strconv.Atoi(p)
			if v >= 30 && v <= 49 || v >= 90 && v <= 107 {
				n++
			}
		}
	}
	return n
}

func TestNoColorDrawsNoColour(t *testing.T) {
	h := goldenWorkspace(t) // built with NoColor
	h.press("n")
	if c := colours(h.app.Render()); c != 0 {
		t.Fatalf("a no-colour studio emits %d colour parameters", c)
	}
	a, err := New(Options{Engine: attach.Local(h.eng), Theme: "light"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if colours(a.Render()) == 0 {
		t.Fatal("the coloured studio emits no colour: the check is blind")
	}
	if _, err := New(Options{Engine: attach.Local(h.eng), Theme: "plaid"}); err == nil {
		t.Fatal("an unknown theme is an error")
	}
}
