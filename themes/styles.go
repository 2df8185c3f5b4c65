package themes

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Tone is a semantic colour role a component picks for a piece of text: a
// status badge, a decision, a count.
type Tone int

// The tones, one per semantic token.
const (
	ToneBase Tone = iota
	ToneSubtle
	ToneAccent
	ToneSuccess
	ToneWarning
	ToneError
)

// Styles are the roles the studio draws with, built from one palette. The
// zero value draws everything plain.
type Styles struct {
	// NoColor is true when the styles use attributes only.
	NoColor bool

	Base, Subtle, Accent, Success, Warning, Error lipgloss.Style
	Bold                                          lipgloss.Style

	// Panes: the frame and its title, dimmer when the pane has no focus.
	Border, BorderFocused lipgloss.Style
	Title, TitleFocused   lipgloss.Style
	// Selected is the cursor row of the focused pane; SelectedBlurred the
	// remembered row of a pane without focus.
	Selected, SelectedBlurred lipgloss.Style
	// TabActive and TabInactive are the centre's tab labels.
	TabActive, TabInactive lipgloss.Style

	// Key and Hint draw help: the key, then what it does.
	Key, Hint lipgloss.Style
	// StatusLine is the bottom line; StatusError an error shown in it.
	StatusLine, StatusError lipgloss.Style
	// Dialog is a modal box's frame.
	Dialog lipgloss.Style

	// Transcript roles.
	User, Assistant, Notice, Reasoning, ToolTitle, ToolBody lipgloss.Style

	// Diffs; the Word styles mark the changed words inside a changed line.
	DiffAdd, DiffDel, DiffHunk, DiffMeta lipgloss.Style
	DiffAddWord, DiffDelWord             lipgloss.Style

	// Editor: the cursor cell, the selection, search matches and the line
	// numbers (the cursor's line number in LineNumberActive).
	Cursor, Selection, Match     lipgloss.Style
	LineNumber, LineNumberActive lipgloss.Style

	// Syntax highlighting roles, from the tokens: keywords, strings,
	// comments, numbers, function names, type names, operators and
	// punctuation, and everything else (plain identifiers).
	SynKeyword, SynString, SynComment, SynNumber, SynFunc, SynType, SynOperator, SynPlain lipgloss.Style

	// Markdown roles, for an agent's answers: heading text, inline code,
	// link text (its address is Subtle), and the marks around content
	// (list bullets and numbers, a quote's bar, a code block's bar, a
	// rule). Emphasis adds italic, bold or strikethrough to whichever
	// role it falls in.
	MdHeading, MdCode, MdLink, MdMark lipgloss.Style
}

// Build turns a palette into styles. With noColor the roles stay distinct
// through attributes alone, so NO_COLOR loses no information.
func Build(p Palette, noColor bool) Styles {
	if noColor {
		return plain()
	}
	c := func(hex string) color.Color { return lipgloss.Color(hex) }
	fg := func(hex string) lipgloss.Style { return lipgloss.NewStyle().Foreground(c(hex)) }
	s := Styles{
		Base: fg(p.Base), Subtle: fg(p.Subtle), Accent: fg(p.Accent),
		Success: fg(p.Success), Warning: fg(p.Warning), Error: fg(p.Error),
		Bold: fg(p.Base).Bold(true),

		Border: fg(p.Subtle), BorderFocused: fg(p.Accent),
		Title: fg(p.Subtle).Bold(true), TitleFocused: fg(p.Accent).Bold(true),
		Selected:        lipgloss.NewStyle().Foreground(c(p.Base)).Background(c(p.Surface)).Bold(true),
		SelectedBlurred: lipgloss.NewStyle().Foreground(c(p.Base)).Background(c(p.Surface)),
		TabActive:       fg(p.Accent).Bold(true).Underline(true),
		TabInactive:     fg(p.Subtle),

		Key: fg(p.Accent).Bold(true), Hint: fg(p.Subtle),
		StatusLine: fg(p.Subtle), StatusError: fg(p.Error).Bold(true),
		Dialog: fg(p.Accent),

		User: fg(p.Accent).Bold(true), Assistant: fg(p.Base), Notice: fg(p.Warning).Italic(true),
		Reasoning: fg(p.Subtle).Italic(true), ToolTitle: fg(p.ANSI[13]).Bold(true), ToolBody: fg(p.Subtle),

		DiffAdd: fg(p.Success), DiffDel: fg(p.Error), DiffHunk: fg(p.ANSI[6]).Bold(true), DiffMeta: fg(p.Subtle).Bold(true),
		DiffAddWord: fg(p.Success).Reverse(true), DiffDelWord: fg(p.Error).Reverse(true),

		Cursor:     lipgloss.NewStyle().Reverse(true),
		Selection:  lipgloss.NewStyle().Foreground(c(p.Base)).Background(c(p.Surface)),
		Match:      fg(p.Warning).Underline(true),
		LineNumber: fg(p.Subtle), LineNumberActive: fg(p.Accent),

		SynKeyword: fg(p.Accent).Bold(true), SynString: fg(p.Success), SynComment: fg(p.Subtle).Italic(true),
		SynNumber: fg(p.Warning), SynFunc: fg(p.ANSI[12]), SynType: fg(p.ANSI[14]), SynOperator: fg(p.ANSI[13]),
		SynPlain: fg(p.Base),

		MdHeading: fg(p.Accent).Bold(true), MdCode: fg(p.ANSI[11]), MdLink: fg(p.ANSI[12]).Underline(true),
		MdMark: fg(p.Subtle),
	}
	return s
}

func plain() Styles {
	n := lipgloss.NewStyle()
	return Styles{
		NoColor: true,
		Base:    n, Subtle: n.Faint(true), Accent: n.Bold(true), Success: n, Warning: n.Bold(true),
		Error: n.Bold(true).Underline(true), Bold: n.Bold(true),
		Border: n.Faint(true), BorderFocused: n.Bold(true), Title: n, TitleFocused: n.Bold(true),
		Selected: n.Reverse(true), SelectedBlurred: n.Underline(true),
		TabActive: n.Bold(true).Underline(true), TabInactive: n.Faint(true),
		Key: n.Bold(true), Hint: n, StatusLine: n, StatusError: n.Bold(true), Dialog: n.Bold(true),
		User: n.Bold(true), Assistant: n, Notice: n.Italic(true), Reasoning: n.Faint(true).Italic(true),
		ToolTitle: n.Bold(true), ToolBody: n.Faint(true),
		DiffAdd: n, DiffDel: n, DiffHunk: n.Bold(true), DiffMeta: n.Bold(true),
		DiffAddWord: n.Underline(true), DiffDelWord: n.Underline(true).Strikethrough(true),
		Cursor: n.Reverse(true), Selection: n.Reverse(true), Match: n.Underline(true),
		LineNumber: n.Faint(true), LineNumberActive: n.Bold(true),
		SynKeyword: n.Bold(true), SynString: n, SynComment: n.Faint(true), SynNumber: n,
		SynFunc: n, SynType: n, SynOperator: n, SynPlain: n,
		MdHeading: n.Bold(true), MdCode: n.Reverse(true), MdLink: n.Underline(true), MdMark: n.Faint(true),
	}
}

// Tone returns the style of a semantic tone.
func (s Styles) Tone(t Tone) lipgloss.Style {
	switch t {
	case ToneSubtle:
		return s.Subtle
	case ToneAccent:
		return s.Accent
	case ToneSuccess:
		return s.Success
	case ToneWarning:
		return s.Warning
	case ToneError:
		return s.Error
	}
	return s.Base
}
