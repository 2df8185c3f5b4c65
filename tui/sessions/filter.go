package sessions

import (
	"strings"
	"unicode"

	sess "github.com/atelier-studio/atelier/sessions"
)

// StatusFilter narrows the list to a group of statuses.
type StatusFilter int

// The status filters, in the order `v` cycles them. All hides archived
// sessions; Archived shows only them.
const (
	All StatusFilter = iota
	Live
	NeedsYou
	Ended
	Archived
)

func (f StatusFilter) String() string {
	return [...]string{"all", "live", "needs you", "ended", "archived"}[f]
}

func (f StatusFilter) next() StatusFilter { return (f + 1) % (Archived + 1) }

// keep reports whether a session passes the status filter. needs says
// whether it waits on the operator.
func (f StatusFilter) keep(s sess.Session, needs bool) bool {
	if s.Archived != (f == Archived) {
		return false
	}
	switch f {
	case Live:
		return s.Status != sess.Ended
	case NeedsYou:
		return needs
	case Ended:
		return s.Status == sess.Ended
	}
	return true
}

// fuzzy reports whether every rune of pattern occurs in text in order,
// ignoring case and spaces in the pattern: "fxts" matches "fix-tests".
func fuzzy(pattern, text string) bool {
	if pattern == "" {
		return true
	}
	p := []rune(strings.ToLower(pattern))
	i := 0
	for _, r := range strings.ToLower(text) {
		for i < len(p) && unicode.IsSpace(p[i]) {
			i++
		}
		if i == len(p) {
			return true
		}
		if r == p[i] {
			i++
		}
	}
	for i < len(p) && unicode.IsSpace(p[i]) {
		i++
	}
	return i == len(p)
}
