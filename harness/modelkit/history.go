package modelkit

import (
	"strings"

	"github.com/atelier-studio/atelier/sessions"
)

// Turn is one message as the APIs see it: a user's text, or an assistant's
// text with the tool calls it made and their results. One transcript
// message may make several turns: an assistant message that holds the steps
// of a whole tool loop (text, calls, text, calls...) becomes one turn per
// step, each followed by its results.
type Turn struct {
	Role  sessions.Role
	Text  string
	Calls []Call
	// Thinking is the step's signed (or redacted) thinking, for providers
	// that want it sent back with the tool results.
	Thinking []Thought
}

// Thought is one signed or redacted thinking block of a step.
type Thought struct {
	Text, Signature, Redacted string
}

// Call is a tool call with the result the model will read.
type Call struct {
	ID, Name, Input string
	Result          string
	Failed          bool
}

// Turns converts the transcript. Notice messages, reasoning and error parts
// are the engine's or the display's and are not sent; a call without a
// result (a crash left it) is sent as interrupted, since the APIs want a
// result for every call.
func Turns(history []sessions.Message) []Turn {
	var out []Turn
	for _, m := range history {
		switch m.Role {
		case sessions.User:
			if t := m.Text(); strings.TrimSpace(t) != "" {
				out = append(out, Turn{Role: sessions.User, Text: t})
			}
		case sessions.Assistant:
			out = append(out, assistantTurns(m)...)
		}
	}
	return out
}

func assistantTurns(m sessions.Message) []Turn {
	var out []Turn
	cur := Turn{Role: sessions.Assistant}
	flush := func() {
		if cur.Text != "" || len(cur.Calls) > 0 {
			out = append(out, cur)
		}
		cur = Turn{Role: sessions.Assistant}
	}
	for _, p := range m.Parts {
		switch {
		case p.Type == sessions.ReasoningPart:
			// Thinking opens a step: after text or calls it is the next one.
			if len(cur.Calls) > 0 || cur.Text != "" {
				flush()
			}
			if p.Signature != "" || p.Redacted != "" {
				cur.Thinking = append(cur.Thinking, Thought{Text: p.Text, Signature: p.Signature, Redacted: p.Redacted})
			}
		case p.Type == sessions.TextPart:
			if len(cur.Calls) > 0 {
				flush()
			}
			cur.Text += p.Text
		case p.Type == sessions.ToolPart && p.Tool != nil:
			cur.Calls = append(cur.Calls, toolCall(*p.Tool))
		}
	}
	flush()
	return out
}

func toolCall(t sessions.ToolCall) Call {
	c := Call{ID: t.ID, Name: t.Name, Input: t.Input}
	if strings.TrimSpace(c.Input) == "" {
		c.Input = "{}"
	}
	switch t.State {
	case sessions.ToolDone:
		c.Result = t.Output
		if c.Result == "" {
			c.Result = "(no output)"
		}
	case sessions.ToolError:
		c.Failed = true
		c.Result = "Error: " + t.Output
		if t.Output == "" {
			c.Result = "Error: the tool failed without a message."
		}
	case sessions.ToolDenied:
		c.Failed = true
		c.Result = "The user denied this tool call."
		if t.Output != "" {
			c.Result += " Their message: " + t.Output
		}
	default: // interrupted, or left pending or running by a crash
		c.Failed = true
		c.Result = "The tool call was interrupted before it finished."
		if t.Output != "" {
			c.Result += " Output so far:\n" + t.Output
		}
	}
	return c
}
