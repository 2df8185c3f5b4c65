package notify

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// maxSummary is how long a summary may be, in runes.
const maxSummary = 300

// Text is what a notification says, as a title and a body: what is asked,
// of which session, in which workspace, and how to act.
func Text(ev Event) (title, body string) {
	ws := filepath.Base(ev.Workspace)
	switch ev.Kind {
	case KindApproval:
		title = "Atelier: approval needed in " + ws
	case KindQuestion:
		title = "Atelier: a question in " + ws
	case KindStuck:
		title = "Atelier: a session is stuck in " + ws
	default:
		title = "Atelier: test notification from " + ws
	}
	var lines []string
	if ev.Title != "" {
		lines = append(lines, ev.Title+":")
	}
	lines = append(lines, ev.Summary, "→ "+ev.Act)
	return OneLine(title, 120), strings.Join(lines, "\n")
}

// OneLine makes s one line of at most n runes: controls (escape sequences
// included, which a terminal or a notification daemon might act on) become
// spaces, and a longer text ends with "…".
func OneLine(s string, n int) string { return oneLine(s, n) }

func oneLine(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "�"))
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n-1]) + "…"
	}
	return s
}

// Summary is a summary cut to the length an Event carries.
func Summary(s string) string { return oneLine(s, maxSummary) }

// Act is the command line that opens the studio on workspace, quoted for
// a POSIX shell when it needs to be.
func Act(workspace string) string { return "atelier " + shellQuote(workspace) }

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
