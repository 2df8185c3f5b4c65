package core

import (
	"strings"

	"github.com/atelier-studio/atelier/internal/textdiff"
)

// UnifiedDiff renders a unified diff of two texts with three lines of
// context, for approvals of writes ("" when they are the same).
func UnifiedDiff(name, old, neu string) string {
	if old == neu {
		return ""
	}
	return textdiff.Unified("a/"+name, "b/"+name, splitLines(old), splitLines(neu), 3)
}

// splitLines splits a text into lines without a last empty one, so a file
// created from nothing diffs as all additions.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
