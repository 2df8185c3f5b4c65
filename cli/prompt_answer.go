package cli

import (
	"fmt"
	"strings"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// promptAnswer asks the operator on the terminal for an answer to an
// approval or a question of session id, reading lines with readLine; ok is
// false when the prompt was cut short (interrupted, or a question with no
// default left empty). Both the in-process runner and the one that follows
// a host use it, so the prompts read the same.
func promptAnswer(s *streams, id string, it sessions.Interaction, readLine func() (string, bool)) (core.Answer, bool) {
	var a core.Answer
	if it.Kind == sessions.Approval {
		what := it.Command
		if what == "" {
			what = it.Path
		}
		if it.Diff != "" {
			fmt.Fprintln(s.err, it.Diff)
		}
		fmt.Fprintf(s.err, "%s wants to %s %s. Allow? [y]es once / [s]ession / [n]o: ", id, it.Tool, what)
		line, ok := readLine()
		if !ok {
			return core.Answer{}, false
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			a.Decision = sessions.AllowOnce
		case "s", "session":
			a.Decision = sessions.AllowSession
		default:
			a.Decision = sessions.Deny
		}
	} else {
		def := ""
		if it.Default != "" {
			def = " [" + it.Default + "]"
		}
		if len(it.Choices) > 0 {
			def = " (" + strings.Join(it.Choices, ", ") + ")" + def
		}
		fmt.Fprintf(s.err, "%s asks: %s%s: ", id, it.Text, def)
		line, ok := readLine()
		if !ok {
			return core.Answer{}, false
		}
		a.Text = strings.TrimSpace(line)
		if a.Text == "" && it.Default == "" {
			return core.Answer{}, false
		}
	}
	return a, true
}
