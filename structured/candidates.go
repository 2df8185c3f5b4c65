package structured

import (
	"encoding/json"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer words the validator's messages (in English, its default).
var printer = message.NewPrinter(language.English)

// Candidates returns the JSON values an answer holds, in the order they
// appear: the content of each fenced code block that is one JSON value
// (whatever its info string: ```json, ``` or ~~~), and each object or
// array written bare in the prose around the blocks. An answer that is
// nothing but one JSON value (a number, a string) is that value.
func Candidates(text string) []string {
	var out []string
	for _, seg := range segments(text) {
		if seg.fenced {
			if v := strings.TrimSpace(seg.text); v != "" && json.Valid([]byte(v)) {
				out = append(out, v)
			}
			continue
		}
		out = append(out, bare(seg.text)...)
	}
	if len(out) == 0 {
		if v := strings.TrimSpace(text); v != "" && json.Valid([]byte(v)) {
			out = append(out, v)
		}
	}
	return out
}

// segment is a piece of an answer: the inside of a fenced code block, or
// the prose between blocks.
type segment struct {
	text   string
	fenced bool
}

// segments cuts text into prose and fenced blocks (CommonMark's fences: a
// line of three or more backticks or tildes, indented at most three
// spaces, closed by a line of at least as many of the same character). A
// block left open runs to the end.
func segments(text string) []segment {
	var out []segment
	var cur strings.Builder
	fence := "" // the open fence, "" in prose
	flush := func(fenced bool) {
		out = append(out, segment{text: cur.String(), fenced: fenced})
		cur.Reset()
	}
	for line := range strings.SplitAfterSeq(text, "\n") {
		trimmed := strings.TrimRight(line, "\r\n")
		indent := len(trimmed) - len(strings.TrimLeft(trimmed, " "))
		body := strings.TrimLeft(trimmed, " ")
		switch {
		case fence == "" && indent <= 3 && fenceOf(body) != "":
			flush(false)
			fence = fenceOf(body)
		case fence != "" && indent <= 3 && closes(body, fence):
			flush(true)
			fence = ""
		default:
			cur.WriteString(line)
		}
	}
	flush(fence != "")
	return out
}

// fenceOf returns the fence a line opens ("```", "~~~~"...), or "".
// A backtick fence's info string holds no backtick.
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			if c == "`" && strings.Contains(line[n:], "`") {
				return ""
			}
			return line[:n]
		}
	}
	return ""
}

// closes reports whether a line closes the open fence.
func closes(line, fence string) bool {
	c := fence[:1]
	n := len(line) - len(strings.TrimLeft(line, c))
	return n >= len(fence) && strings.TrimSpace(line[n:]) == ""
}

// bare finds the objects and arrays written in prose: from each { or [
// that starts a whole JSON value, that value; the scan goes on after it,
// so a value nested in another is not a candidate of its own.
func bare(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			continue
		}
		end := i + int(dec.InputOffset())
		out = append(out, text[i:end])
		i = end - 1
	}
	return out
}
