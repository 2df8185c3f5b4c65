package themes

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"

	"github.com/charmbracelet/x/ansi"
)

func TestBuiltinPalettesAreValid(t *testing.T) {
	for _, name := range Names() {
		p, err := Named(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestNamedRejectsUnknown(t *testing.T) {
	_, err := Named("solarized-plaid")
	if !errors.Is(err, ErrUnknownTheme) {
		t.Fatalf("err = %v, want ErrUnknownTheme", err)
	}
	if !strings.Contains(err.Error(), "dark") {
		t.Errorf("error should list the known themes: %v", err)
	}
}

func TestValidateNamesTheBadToken(t *testing.T) {
	p := Dark()
	p.Warning = "orange"
	err := p.Validate()
	if err == nil || !strings.Contains(err.Error(), "warning") {
		t.Fatalf("err = %v, want one naming the warning token", err)
	}
}

func TestNoColorStylesEmitNoColour(t *testing.T) {
	s := Build(Dark(), true)
	for name, st := range map[string]lipgloss.Style{
		"accent": s.Accent, "error": s.Error, "selected": s.Selected,
		"diffadd": s.DiffAdd, "tool": s.ToolTitle, "warning": s.Warning,
	} {
		out := st.Render("x")
		if c := colourParam(out); c != "" {
			t.Errorf("%s: %q carries colour parameter %s", name, out, c)
		}
		if ansi.Strip(out) != "x" {
			t.Errorf("%s: %q", name, out)
		}
	}
	if s.Selected.Render("x") == "x" {
		t.Error("the selected row must stay visible without colour")
	}
	if c := colourParam(Build(Dark(), false).Error.Render("x")); c == "" {
		t.Error("colourParam finds no colour in a coloured style: the check is blind")
	}
}

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// colourParam returns the first SGR parameter of s that sets a colour.
func colourParam(s string) string {
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if n >= 30 && n <= 49 || n >= 90 && n <= 107 {
				return p
			}
		}
	}
	return ""
}

func TestColourStylesDiffer(t *testing.T) {
	for _, name := range Names() {
		p, _ := Named(name)
		s := Build(p, false)
		if s.Success.Render("x") == s.Error.Render("x") {
			t.Errorf("%s: success and error look alike", name)
		}
		if s.Tone(ToneWarning).Render("x") != s.Warning.Render("x") {
			t.Errorf("%s: Tone(warning) is not the warning style", name)
		}
	}
}
