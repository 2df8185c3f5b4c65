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
		{[]sessions.Message{user, call("exec", sessions.ToolDone, ""), call("write_file", sessions.ToolDone, ""),
			call("ask_user", sessions.ToolDone, "hello"), call("wait", sessions.ToolDone, "")},
			`All done: I listed the files, wrote atelier-demo.md, took your answer, "hello", and waited.`},
		{[]sessions.Message{user, call("exec", sessions.ToolDenied, "denied"), call("write_file", sessions.ToolError, "disk full"),
			call("ask_user", sessions.ToolDone, "goodbye\nmore"), call("wait", sessions.ToolDone, "")},
			`All done: I did not list the files (you denied it), could not write atelier-demo.md, took your answer, "goodbye", and waited.`},
		{[]sessions.Message{call("exec", sessions.ToolDenied, ""), user, call("exec", sessions.ToolDone, "")},
			"All done: I listed the files."},
	} {
		if got := closing(c.history); got != c.want {
			t.Errorf("closing:\n got %s\nwant %s", got, c.want)
		}
	}
}
