package anthropic

import (
	"strings"

	"github.com/atelier-studio/atelier/sessions"
)

// turn is one message as the APIs see it: a user's text, or an assistant's
// text with the tool calls it made and their results. One transcript
// message may make several turns: an assistant message that holds the steps
// of a whole tool loop (text, calls, text, calls...) becomes one turn per
// step, each followed by its results.
type turn struct {
	role  sessions.Role
	text  string
	calls []call
}

// call is a tool call with the result the model will read.
type call struct {
	id, name, input string
	result          string
	failed          bool
}

// turns converts the transcript. Notice messages, reasoning and error parts
// are the engine's or the display's and are not sent; a call without a
// result (a crash left it) is sent as interrupted, since the APIs want a
// result for every call.
func turns(history []sessions.Message) []turn {
	var out []turn
	for _, m := range history {
		switch m.Role {
		case sessions.User:
			if t := m.Text(); strings.TrimSpace(t) != "" {
				out = append(out, turn{role: sessions.User, text: t})
			}
		case sessions.Assistant:
			out = append(out, assistantTurns(m)...)
		}
	}
	return out
}

func assistantTurns(m sessions.Message) []turn {
	var out []turn
	cur := turn{role: sessions.Assistant}
	flush := func() {
		if cur.text != "" || len(cur.calls) > 0 {
			out = append(out, cur)
		}
		cur = turn{role: sessions.Assistant}
	}
	for _, p := range m.Parts {
		switch {
		case p.Type == sessions.TextPart:
			if len(cur.calls) > 0 {
				flush()
			}
			cur.text += p.Text
		case p.Type == sessions.ToolPart && p.Tool != nil:
			cur.calls = append(cur.calls, toolCall(*p.Tool))
		}
	}
	flush()
	return out
}

func toolCall(t sessions.ToolCall) call {
	c := call{id: t.ID, name: t.Name, input: t.Input}
	if strings.TrimSpace(c.input) == "" {
		c.input = "{}"
	}
	switch t.State {
	case sessions.ToolDone:
		c.result = t.Output
		if c.result == "" {
			c.result = "(no output)"
		}
	case sessions.ToolError:
		c.failed = true
		c.result = "Error: " + t.Output
		if t.Output == "" {
			c.result = "Error: the tool failed without a message."
		}
	case sessions.ToolDenied:
		c.failed = true
		c.result = "The user denied this tool call."
		if t.Output != "" {
			c.result += " Their message: " + t.Output
		}
	default: // interrupted, or left pending or running by a crash
		c.failed = true
		c.result = "The tool call was interrupted before it finished."
		if t.Output != "" {
			c.result += " Output so far:\n" + t.Output
		}
	}
	return c
}
