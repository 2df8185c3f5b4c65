package markdown

import (
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/atelier-studio/atelier/themes"
	"github.com/atelier-studio/atelier/tui/syntax"
)

// role is what a run of text is: prose, a heading, code, a link and its
// address, a mark (bullet, bar, rule), or a syntax role inside a code
// block (roleSyntax plus the syntax.Role).
type role uint8

const (
	roleText role = iota
	roleHeading
	roleCode
	roleLink
	roleURL
	roleMark
	roleSyntax
)

// attr is emphasis, added to whatever role it falls in.
type attr uint8

const (
	attrItalic attr = 1 << iota
	attrBold
	attrStrike
)

// look is how a run draws: a role and its emphasis.
type look struct {
	role role
	attr attr
}

// sgr is the escape sequences that open and close a look.
type sgr struct{ open, close string }

// looks turns looks into escape sequences, taken once from the styles:
// drawing a line then costs string appends, not a style render per run.
type looks struct {
	st    themes.Styles
	cache map[look]sgr
}

func newLooks(st themes.Styles) *looks { return &looks{st: st, cache: map[look]sgr{}} }

func (l *looks) style(k look) lipgloss.Style {
	var s lipgloss.Style
	switch {
	case k.role >= roleSyntax:
		s = syntax.Style(l.st, syntax.Role(k.role-roleSyntax))
	case k.role == roleHeading:
		s = l.st.MdHeading
	case k.role == roleCode:
		s = l.st.MdCode
	case k.role == roleLink:
		s = l.st.MdLink
	case k.role == roleURL:
		s = l.st.Subtle
	case k.role == roleMark:
		s = l.st.MdMark
	default:
		s = l.st.Assistant
	}
	if k.attr&attrItalic != 0 {
		s = s.Italic(true)
	}
	if k.attr&attrBold != 0 {
		s = s.Bold(true)
	}
	if k.attr&attrStrike != 0 {
		s = s.Strikethrough(true)
	}
	return s
}

// get returns the sequences of a look.
func (l *looks) get(k look) sgr {
	if q, ok := l.cache[k]; ok {
		return q
	}
	var q sgr
	r := l.style(k).Render("X")
	if i := strings.Index(r, "X"); i >= 0 {
		q = sgr{r[:i], r[i+1:]}
	}
	l.cache[k] = q
	return q
}
