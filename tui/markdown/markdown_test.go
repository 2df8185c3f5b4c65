package markdown

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/syntax"
)

func plainRenderer() *Renderer { return NewRenderer(themes.Build(themes.Dark(), true)) }

// plain draws src without colour and strips what attributes remain.
func plain(t *testing.T, src string, width int) string {
	t.Helper()
	lines := plainRenderer().Render(src, width)
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d wide, more than %d: %q", i, w, width, l)
		}
		lines[i] = ansi.Strip(l)
	}
	return strings.Join(lines, "\n")
}

func TestBlocksDraw(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
		w               int // 30 when 0
	}{
		{"heading", "# Title\n## Part *two*", "# Title\n\n## Part two", 0},
		{"emphasis", "a *b* **c** ~~d~~ `e`", "a b c d e", 0},
		{"escapes and entities", `\*not\* &amp; &#65;`, "*not* & A", 0},
		{"soft break kept", "one\ntwo", "one\ntwo", 0},
		{"wrapped at spaces", "aaa bbb ccc ddd", "aaa bbb\nccc ddd", 8},
		{"long word cut", "abcdefghijkl", "abcdefgh\nijkl", 8},
		{"bullets nest", "- a\n- b\n  - c", "• a\n• b\n  ◦ c", 0},
		{"wrapped item hangs", "- aa bb cc", "• aa bb\n  cc", 8},
		{"numbers align", "9. a\n10. b", " 9. a\n10. b", 0},
		{"loose list", "- a\n\n- b", "• a\n\n• b", 0},
		{"tasks", "- [x] done\n- [ ] todo", "• [x] done\n• [ ] todo", 0},
		{"link shows its address", "[docs](https://x.io)", "docs https://x.io", 0},
		{"link that is its address", "<https://x.io>", "https://x.io", 0},
		{"bare link", "see https://x.io", "see https://x.io", 0},
		{"quote", "> a\n> b", "┃ a\n┃ b", 0},
		{"rule", "---", "────────", 8},
		{"fenced code", "```\nx := 1\n\ty\n```", "│ x := 1\n│     y", 0},
		{"unclosed fence", "```go\nfunc f() {", "│ func f() {", 0},
		{"empty fence", "```go\n", "│", 0},
		{"code cut not wrapped", "```\n0123456789\n```", "│ 012345\n│ 6789", 8},
		{"table", "| a | b |\n|---|--:|\n| xx | 1 |", "a  │ b\n───┼──\nxx │ 1", 0},
		{"table too wide", "| aaaa | bbbb |\n|---|---|\n| c | d |", "aaaa │\nbbbb\nc │ d", 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := c.w
			if w == 0 {
				w = 30
			}
			if got := plain(t, c.src, w); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestCodeIsHighlighted(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	r := NewRenderer(st)
	kw := newLooks(st).get(look{role: roleSyntax + role(syntax.Keyword)}).open
	if kw == "" {
		t.Fatal("the keyword style opens nothing: the check is blind")
	}
	for name, src := range map[string]string{
		"closed":   "```go\nfunc main() {}\n```",
		"unclosed": "```go\nfunc main() {\n",
	} {
		out := strings.Join(r.Render(src, 40), "\n")
		if !strings.Contains(out, kw+"func") {
			t.Errorf("%s: func is not drawn as a keyword: %q", name, out)
		}
	}
	if out := strings.Join(r.Render("```\nfunc main() {}\n```", 40), "\n"); strings.Contains(out, kw+"func") {
		t.Errorf("a fence without a language is not coloured: %q", out)
	}
	// The line still streaming stays plain until its break; the lines
	// before it are coloured.
	out := r.Render("```go\nfunc main() {\n\tfor", 40)
	if len(out) != 2 || !strings.Contains(out[0], kw+"func") || strings.Contains(out[1], kw+"for") {
		t.Errorf("an unclosed fence's last line, still streaming: %q", out)
	}
}

func TestRolesDraw(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	r := NewRenderer(st)
	out := strings.Join(r.Render("# H\n\n*i* **b** `c` [l](u)", 40), "\n")
	for name, want := range map[string]string{
		"heading": st.MdHeading.Render("# H"),
		"code":    st.MdCode.Render("c"),
		"link":    st.MdLink.Render("l"),
		"address": st.Subtle.Render("u"),
		"italic":  st.Assistant.Italic(true).Render("i"),
		"bold":    st.Assistant.Bold(true).Render("b"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("%s: %q not in %q", name, want, out)
		}
	}
}

var sgrRe = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// coloured reports whether s sets a foreground or background colour.
func coloured(s string) bool {
	for _, m := range sgrRe.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			if v, _ := strconv.Atoi(p); v >= 30 && v <= 49 || v >= 90 && v <= 107 {
				return true
			}
		}
	}
	return false
}

func TestNoColourKeepsRolesApart(t *testing.T) {
	r := plainRenderer()
	for name, src := range map[string]string{
		"heading": "# H", "code": "`c`", "link": "[l](u)", "emphasis": "*i*", "strong": "**b**",
	} {
		out := strings.Join(r.Render(src, 40), "\n")
		if coloured(out) {
			t.Errorf("%s: the colourless theme sets a colour: %q", name, out)
		}
		if !strings.Contains(out, "\x1b[") {
			t.Errorf("%s: drawn with no attribute, so it looks like prose: %q", name, out)
		}
	}
	if !coloured(strings.Join(NewRenderer(themes.Build(themes.Dark(), false)).Render("`c`", 40), "")) {
		t.Fatal("coloured finds no colour in the dark theme: the check is blind")
	}
}

func TestUnsafeTextIsCleaned(t *testing.T) {
	out := strings.Join(plainRenderer().Render("a\x1b]0;title\x07b `c\x1b[2Jd`", 40), "\n")
	if strings.Contains(out, "title") || strings.Contains(out, "[2J") {
		t.Fatalf("escape sequences pass: %q", out)
	}
}

func TestLinesFitEveryWidth(t *testing.T) {
	src := "# A heading long enough to wrap\n\n- item with `code span` and https://example.com/a/very/long/path\n" +
		"  1. nested 漢字漢字漢字 wide\n\n> quote with **bold** words\n\n```go\nfunc main() { println(\"a long line of code\") }\n```\n\n" +
		"| col | other |\n|---|---|\n| 1 | 2 |\n"
	for w := 1; w <= 50; w++ {
		plain(t, src, w)
	}
}
