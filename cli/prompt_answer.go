package cli

import (
	"fmt"
	"strings"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/engine"
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
		choices := "[y]es once / [s]ession / [n]o"
		suggested := ""
		if it.Command != "" {
			// A session grant of a command covers that command; p grants
			// the commands starting with the suggested words, or with the
			// words typed after it ("p go test").
			suggested = engine.SuggestPrefix(it.Command)
			choices = "[y]es once / [s]ession: this command / [p]refix: commands starting with `" + suggested + "` / [n]o"
		}
		fmt.Fprintf(s.err, "%s wants to %s %s. Allow? %s: ", id, it.Tool, what, choices)
		line, ok := readLine()
		if !ok {
			return core.Answer{}, false
		}
		word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch strings.ToLower(word) {
		case "y", "yes":
			a.Decision = sessions.AllowOnce
		case "s", "session":
			a.Decision = sessions.AllowSession
		case "p", "prefix":
			if it.Command == "" {
				a.Decision = sessions.Deny
				break
			}
			a.Decision, a.Prefix = sessions.AllowSession, suggested
			if rest = strings.TrimSpace(rest); rest != "" {
				a.Prefix = rest
			}
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

// answerHeadless answers an interaction as --approve mode says, for the
// in-process runner and the one that follows a host alike: ask prompts on
// the terminal (ask), deny denies, auto allows (never a protected path,
// which only a person answers) and takes a question's default. by names
// who answered ("" lets the host record its client). false means headless
// mode cannot answer: the session waits on the operator.
func answerHeadless(mode, by string, it sessions.Interaction, ask func(sessions.Interaction) bool,
	send func(core.Answer) error, notice func(string)) bool {
	var a core.Answer
	switch it.Kind {
	case sessions.Park:
		return it.Deadline != nil // a timer fires by itself; an event may never come
	case sessions.Approval:
		switch {
		case mode == "ask":
			return ask(it)
		case mode == "deny":
			a = core.Answer{Decision: sessions.Deny, Message: "denied by --approve deny"}
		case it.Protected:
			// The engine's verdict (a protected path however it was
			// named, a secret file): only a person answers it.
			notice(fmt.Sprintf("%s %q needs the operator: %s", it.Tool, it.Path, it.Reason))
			return false
		default:
			a = core.Answer{Decision: sessions.AllowOnce}
		}
	case sessions.Question:
		if mode == "ask" {
			return ask(it)
		}
		if it.Default == "" {
			return false
		}
		a = core.Answer{Text: it.Default}
	default:
		return false
	}
	a.By = by
	if err := send(a); err != nil {
		notice("answer failed: " + err.Error())
		return false
	}
	return true
}
