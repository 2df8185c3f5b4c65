package syntax

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/atelier-studio/atelier/themes"
)

// Role is what a piece of code is, as far as colouring goes.
type Role uint8

// The roles, one per syntax style of themes.Styles.
const (
	Plain Role = iota
	Keyword
	String
	Comment
	Number
	Func
	Type
	Operator
	// Roles counts the roles: callers that add roles of their own (the
	// editor's selection and cursor) number them from here.
	Roles
)

// Span gives bytes [Start, End) of a line a role.
type Span struct {
	Start, End int
	Role       Role
}

// ForFile picks a lexer by file name; nil for plain text.
func ForFile(path string) chroma.Lexer {
	l := lexers.Match(path)
	if l == nil {
		return nil
	}
	return chroma.Coalesce(l)
}

// ForLanguage picks a lexer by a language name or alias, as written after
// a Markdown code fence ("go", "sh", "python"); nil when none matches.
func ForLanguage(name string) chroma.Lexer {
	if name == "" {
		return nil
	}
	l := lexers.Get(name)
	if l == nil {
		return nil
	}
	return chroma.Coalesce(l)
}

// Lex colours lines with a lexer: one list of spans per line, plain
// stretches left out. A lexer that fails or panics on its input gives
// plain lines.
func Lex(lexer chroma.Lexer, lines []string) (out [][]Span) {
	out = make([][]Span, len(lines))
	defer func() {
		// A lexer may panic on input it cannot take: draw plain.
		if recover() != nil {
			out = make([][]Span, len(lines))
		}
	}()
	it, err := lexer.Tokenise(nil, strings.Join(lines, "\n")+"\n")
	if err != nil {
		return out
	}
	line, col := 0, 0
	for tok := it(); tok != chroma.EOF; tok = it() {
		r := RoleOf(tok.Type)
		v := tok.Value
		for v != "" && line < len(lines) {
			part, rest, nl := strings.Cut(v, "\n")
			if part != "" && r != Plain {
				out[line] = append(out[line], Span{Start: col, End: col + len(part), Role: r})
			}
			col += len(part)
			if !nl {
				break
			}
			line, col, v = line+1, 0, rest
		}
	}
	return out
}

// RoleOf maps a chroma token type to a role.
func RoleOf(t chroma.TokenType) Role {
	switch {
	case t == chroma.KeywordType || t == chroma.NameClass || t == chroma.NameBuiltin:
		return Type
	case t.InCategory(chroma.Keyword):
		return Keyword
	case t == chroma.NameFunction || t == chroma.NameFunctionMagic:
		return Func
	case t.InCategory(chroma.Comment):
		return Comment
	case t.InSubCategory(chroma.LiteralString):
		return String
	case t.InSubCategory(chroma.LiteralNumber):
		return Number
	case t.InCategory(chroma.Operator), t.InCategory(chroma.Punctuation):
		return Operator
	}
	return Plain
}

// Style returns the theme's style of a role.
func Style(st themes.Styles, r Role) lipgloss.Style {
	switch r {
	case Keyword:
		return st.SynKeyword
	case String:
		return st.SynString
	case Comment:
		return st.SynComment
	case Number:
		return st.SynNumber
	case Func:
		return st.SynFunc
	case Type:
		return st.SynType
	case Operator:
		return st.SynOperator
	}
	return st.SynPlain
}
