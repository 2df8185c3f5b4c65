package harness

import (
	"testing"

	"github.com/atelier-studio/atelier/sessions"
)

// The demo's last words say what really happened: a call denied, one that
// failed, and the answer actually given.
func TestDemoClosingTellsWhatHappened(t *testing.T) {
	call := func(name string, st sessions.ToolState, out string) sessions.Message {
		return sessions.Message{Role: sessions.Assistant, Parts: []sessions.Part{{Type: sessions.ToolPart,
			Tool: &sessions.ToolCall{Name: name, State: st, Output: out}}}}
	}
	user := sessions.Message{Role: sessions.User, Parts: []sessions.Part{{Type: sessions.TextPart, Text: "go"}}}
	for _, c := range []struct {
		history []sessions.Message
		want    string
	}{
		{[]sessions.Message{user, call("exec", sessions.ToolDone, ""), call("ask_user", sessions.ToolDone, "hello"),
			call("write_file", sessions.ToolDone, ""), call("wait", sessions.ToolDone, "")},
			`All done: I listed the files, took your answer, "hello", wrote atelier-demo.md ending with it, and waited.`},
		{[]sessions.Message{user, call("exec", sessions.ToolDenied, "denied"), call("ask_user", sessions.ToolDone, "goodbye\nmore"),
			call("write_file", sessions.ToolError, "disk full"), call("wait", sessions.ToolDone, "")},
			`All done: I did not list the files (you denied it), took your answer, "goodbye", could not write atelier-demo.md, and waited.`},
		{[]sessions.Message{user, call("exec", sessions.ToolDone, ""), call("write_file", sessions.ToolDone, "")},
			"All done: I listed the files, and wrote atelier-demo.md."},
		{[]sessions.Message{call("exec", sessions.ToolDenied, ""), user, call("exec", sessions.ToolDone, "")},
			"All done: I listed the files."},
	} {
		if got := closing(c.history); got != c.want {
			t.Errorf("closing:\n got %s\nwant %s", got, c.want)
		}
	}
}

// The demo asks before it writes, and its note ends with the answer.
func TestDemoNoteEndsWithTheAnswer(t *testing.T) {
	user := sessions.Message{Role: sessions.User, Parts: []sessions.Part{{Type: sessions.TextPart, Text: "go"}}}
	asked := func(st sessions.ToolState, out string) sessions.Message {
		return sessions.Message{Role: sessions.Assistant, Parts: []sessions.Part{{Type: sessions.ToolPart,
			Tool: &sessions.ToolCall{Name: "ask_user", State: st, Output: out}}}}
	}
	for _, c := range []struct {
		history []sessions.Message
		want    string
	}{
		{[]sessions.Message{user, asked(sessions.ToolDone, "goodbye")}, "Goodbye!"},
		{[]sessions.Message{user, asked(sessions.ToolDone, "hello")}, "Hello!"},
		{[]sessions.Message{user, asked(sessions.ToolInterrupted, "")}, "Hello!"},
		{[]sessions.Message{user, asked(sessions.ToolDone, "goodbye"), user}, "Hello!"}, // an earlier turn's answer
	} {
		if got := greeting(c.history); got != c.want {
			t.Errorf("greeting = %q, want %q", got, c.want)
		}
	}
}
