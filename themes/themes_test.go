package themes

import (
	"errors"
	"os"
	"path/filepath"
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

func TestHighContrastIsBuiltIn(t *testing.T) {
	p, err := Named("high-contrast")
	if err != nil || p.Name != "high-contrast" {
		t.Fatalf("Named(high-contrast) = %v, %v", p.Name, err)
	}
	if ForBackground(false).Name != "light" || ForBackground(true).Name != "dark" {
		t.Error("ForBackground picks the wrong theme")
	}
}

func TestThemeFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p, err := Load(write("mine.toml", "extends = \"light\"\naccent = \"#123456\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "mine" || p.Accent != "#123456" || p.Base != Light().Base {
		t.Errorf("loaded %+v", p)
	}
	ansi := `["#000000","#000000","#000000","#000000","#000000","#000000","#000000","#000000",` +
		`"#000000","#000000","#000000","#000000","#000000","#000000","#000000","#ffffff"]`
	p, err = Load(write("j.json", `{"name":"jay","ansi":`+ansi+`}`))
	if err != nil || p.Name != "jay" || p.ANSI[15] != "#ffffff" {
		t.Fatalf("json theme: %+v, %v", p, err)
	}
	cases := []struct {
		name, file, content, key string
		want                     error
	}{
		{"bad colour", "a.toml", "warning = \"orange\"\n", "warning", ErrBadColour},
		{"colour not a string", "b.toml", "base = 12\n", "base", ErrBadColour},
		{"typo", "c.toml", "acent = \"#ffffff\"\n", "acent", ErrUnknownKey},
		{"unknown base theme", "d.toml", "extends = \"plaid\"\n", "extends", ErrUnknownTheme},
		{"short ansi", "e.toml", "ansi = [\"#000000\"]\n", "ansi", ErrBadValue},
		{"bad ansi entry", "f.json", `{"ansi":` + strings.Replace(ansi, `"#ffffff"`, `"white"`, 1) + `}`, "ansi[15]", ErrBadColour},
		{"not TOML", "g.toml", "base = \n", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := write(c.file, c.content)
			_, err := Load(path)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FileError", err)
			}
			if fe.File != path || fe.Key != c.key {
				t.Errorf("file %q key %q, want %q %q", fe.File, fe.Key, path, c.key)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), path) || c.key != "" && !strings.Contains(err.Error(), c.key) {
				t.Errorf("message should name the file and the key: %v", err)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "missing.toml")); err == nil || !strings.Contains(err.Error(), "missing.toml") {
		t.Errorf("a missing file: %v", err)
	}
}
