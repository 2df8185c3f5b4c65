package diff

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"

	"github.com/atelier-studio/atelier/internal/textdiff"
)

// words splits a line into tokens for a word diff: runs of letters and
// digits, runs of spaces, and single other characters.
func words(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		j := i + n
		switch {
		case isWordRune(r):
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(r2) {
					break
				}
				j += n2
			}
		case unicode.IsSpace(r):
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !unicode.IsSpace(r2) {
					break
				}
				j += n2
			}
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// Words compares an old and a new version of a line word by word and
// returns, for each, which of its tokens changed: the pieces to draw
// with the changed-word style.
func Words(old, neu string) (oldParts, newParts []Part) {
	a, b := words(old), words(neu)
	ops := textdiff.Script(a, b)
	for _, o := range ops {
		switch o.Kind {
		case '=':
			oldParts = appendPart(oldParts, a[o.A], false)
			newParts = appendPart(newParts, b[o.B], false)
		case '-':
			oldParts = appendPart(oldParts, a[o.A], true)
		case '+':
			newParts = appendPart(newParts, b[o.B], true)
		}
	}
	return oldParts, newParts
}

// Part is a piece of a line, changed or not.
type Part struct {
	Text    string
	Changed bool
}

func appendPart(ps []Part, text string, changed bool) []Part {
	if n := len(ps); n > 0 && ps[n-1].Changed == changed {
		ps[n-1].Text += text
		return ps
	}
	return append(ps, Part{text, changed})
}

// renderParts draws parts with base for the unchanged ones and word for
// the changed ones; a line whose every part changed is drawn in base (a
// word highlight adds nothing then).
func renderParts(ps []Part, base, word lipgloss.Style) string {
	if len(ps) == 1 {
		return base.Render(ps[0].Text)
	}
	var sb strings.Builder
	for _, p := range ps {
		if p.Changed && strings.TrimSpace(p.Text) != "" {
			sb.WriteString(word.Render(p.Text))
		} else {
			sb.WriteString(base.Render(p.Text))
		}
	}
	return sb.String()
}
