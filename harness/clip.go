package harness

import (
	"strings"
	"unicode/utf8"
)

// Clip shortens what an agent or a model sent (a line, a tool call's input)
// for an error message: at most n bytes, cut on a character boundary and
// marked with "…". Bytes that are not UTF-8 become U+FFFD, so the result is
// always valid UTF-8 (an error goes to the terminal and into JSON).
func Clip(s string, n int) string {
	if len(s) <= n {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.ToValidUTF8(s[:n], "\uFFFD") + "…"
}
