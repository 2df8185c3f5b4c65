package transcript

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/tui/actions"
)

// The card at the foot of a session's tab shows the approval the session
// waits on, what asked for it and the keys, and answers it right there; a
// question is answered with enter, and i still opens a steer.
func TestCardAnswersWhereYouLook(t *testing.T) {
	rec := sess.Session{ID: "s", Title: "fix", Agent: "demo", Status: sess.Running, SubState: sess.Parked, Approval: "ask"}
	tab := NewTab(plainStyles(), rec)
	tab.SetSize(100, 30)
	tab.Loaded(nil, 0, nil)
	tab.Focus()
	if got := tab.HandleKey(kp("a")); got != nil {
		t.Fatalf("a with nothing waiting: %#v", got)
	}
	approval := sess.Interaction{ID: "i1", Kind: sess.Approval, Tool: "write_file", Path: "main.go",
		Diff: "--- a/main.go\n+++ b/main.go\n@@ -1,2 +1,3 @@\n-old\n+new\n+more\n"}
	tab.SetPending([]sess.Interaction{approval, {ID: "i2", Kind: sess.Question, Text: "which?"}})
	screen := ansi.Strip(strings.Join(tab.View(), "\n"))
	for _, want := range []string{"⚠ approval: write_file main.go", "the session's policy (ask) asks before this",
		"main.go: +2 −1", "a allow once", "A allow for the session", "d deny", "D deny with a message", "v diff",
		"1 more waiting after this one"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the card lacks %q:\n%s", want, screen)
		}
	}
	for key, want := range map[string]actions.Action{
		"a": actions.Decide{SessionID: "s", Title: "fix", InteractionID: "i1", Decision: sess.AllowOnce, Subject: "write_file main.go"},
		"A": actions.Decide{SessionID: "s", Title: "fix", InteractionID: "i1", Decision: sess.AllowSession, Subject: "write_file main.go"},
		"d": actions.Decide{SessionID: "s", Title: "fix", InteractionID: "i1", Decision: sess.Deny, Subject: "write_file main.go"},
		"D": actions.Decide{SessionID: "s", Title: "fix", InteractionID: "i1", Decision: sess.Deny, WithMessage: true, Subject: "write_file main.go"},
		"v": actions.ViewDiff{SessionID: "s", Title: "fix", Path: "main.go", Diff: approval.Diff},
	} {
		if got := tab.HandleKey(kp(key)); got != (Respond{want}) {
			t.Errorf("%s on the card: %#v, want %#v", key, got, Respond{want})
		}
	}
	// A protected path says why a person must answer.
	tab.SetPending([]sess.Interaction{{ID: "i3", Kind: sess.Approval, Tool: "exec", Command: "rm .atelier.toml",
		Reason: "it writes a protected path", Protected: true}})
	if screen := ansi.Strip(strings.Join(tab.View(), "\n")); !strings.Contains(screen, "it writes a protected path") ||
		strings.Contains(screen, "v diff") {
		t.Errorf("a protected approval's card:\n%s", screen)
	}

	tab.SetPending([]sess.Interaction{{ID: "i2", Kind: sess.Question, Text: "which file?", Default: "main.go"}})
	screen = ansi.Strip(strings.Join(tab.View(), "\n"))
	if !strings.Contains(screen, "? question: which file?") || !strings.Contains(screen, "enter answer · default: main.go") {
		t.Errorf("the question's card:\n%s", screen)
	}
	want := Respond{actions.Answer{SessionID: "s", Title: "fix", InteractionID: "i2", Question: "which file?", Default: "main.go"}}
	if got := tab.HandleKey(kp("enter")); !equalAnswer(got, want) {
		t.Fatalf("enter on a question: %#v", got)
	}
	if got := tab.HandleKey(kp("i")); got != nil || !tab.TakesText() {
		t.Fatalf("i with a question waiting should open the steer line: %#v", got)
	}
}

// TestCardNamesTheChoices: a question with choices shows them on the card,
// each with the digit that picks it, and the digit answers with that
// choice at once; a digit past the choices does nothing.
func TestCardNamesTheChoices(t *testing.T) {
	rec := sess.Session{ID: "s", Title: "fix", Agent: "demo", Status: sess.Running, SubState: sess.Parked, Approval: "ask"}
	tab := NewTab(plainStyles(), rec)
	tab.SetSize(100, 30)
	tab.Loaded(nil, 0, nil)
	tab.Focus()
	q := sess.Interaction{ID: "q1", Kind: sess.Question, Text: "which database?", Choices: []string{"postgres", "sqlite", "none"}, Default: "sqlite"}
	tab.SetPending([]sess.Interaction{q})
	screen := ansi.Strip(strings.Join(tab.View(), "\n"))
	for _, want := range []string{"? question: which database?", "choices: 1 postgres · 2 sqlite · 3 none", "1–3 pick"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the question's card lacks %q:\n%s", want, screen)
		}
	}
	got, ok := tab.HandleKey(kp("2")).(Respond)
	if a, isAnswer := got.Act.(actions.Answer); !ok || !isAnswer || a.InteractionID != "q1" || a.Default != "sqlite" || !a.TakeDefault {
		t.Fatalf("2 on the card: %#v, want the answer sqlite", got)
	}
	if got := tab.HandleKey(kp("4")); got != nil {
		t.Errorf("4 with three choices: %#v", got)
	}
}

// equalAnswer compares two Respond{Answer} (an Answer holds a slice).
func equalAnswer(got Action, want Respond) bool {
	g, ok := got.(Respond)
	if !ok {
		return false
	}
	ga, ok1 := g.Act.(actions.Answer)
	wa, ok2 := want.Act.(actions.Answer)
	return ok1 && ok2 && ga.SessionID == wa.SessionID && ga.InteractionID == wa.InteractionID &&
		ga.Question == wa.Question && ga.Default == wa.Default && !ga.TakeDefault
}

// A tool call parked on an approval says so on its card, not "running";
// once answered it runs again.
func TestToolCardSaysWhatItWaitsFor(t *testing.T) {
	rec := sess.Session{ID: "s", Title: "fix", Agent: "demo", Status: sess.Running, SubState: sess.Parked}
	tab := NewTab(plainStyles(), rec)
	tab.SetSize(80, 20)
	tab.Loaded([]sess.Message{{ID: "m1", Rev: 1, Role: sess.Assistant, Parts: []sess.Part{{Type: sess.ToolPart,
		Tool: &sess.ToolCall{ID: "c1", Name: "exec", Input: `{"command":"ls -la"}`, State: sess.ToolRunning}}}}}, 0, nil)
	view := func() string { return ansi.Strip(strings.Join(tab.View(), "\n")) }
	if v := view(); !strings.Contains(v, "▸ exec … running") {
		t.Fatalf("before the approval:\n%s", v)
	}
	tab.SetPending([]sess.Interaction{{ID: "i1", Kind: sess.Approval, Tool: "exec", Command: "ls -la", ToolCall: "c1"}})
	if v := view(); !strings.Contains(v, "▸ exec ⚠ waiting for approval") || strings.Contains(v, "running") {
		t.Fatalf("parked on the approval:\n%s", v)
	}
	tab.SetPending(nil)
	if v := view(); !strings.Contains(v, "▸ exec … running") {
		t.Fatalf("after the answer:\n%s", v)
	}
}

// The tab's hints list only what the session's status allows, the card's
// keys first while it waits on the operator.
func TestHintsFollowTheState(t *testing.T) {
	for _, c := range []struct {
		rec   sess.Session
		waits []sess.Interaction
		want  string
	}{
		{sess.Session{Status: sess.Created}, nil, "enter/i r x h"},
		{sess.Session{Status: sess.Running, SubState: sess.Active}, nil, "enter/i p s x h"},
		{sess.Session{Status: sess.Paused}, nil, "enter/i r x h"},
		{sess.Session{Status: sess.Ended}, nil, "f h"},
		{sess.Session{Status: sess.Running, SubState: sess.Parked}, []sess.Interaction{{ID: "i", Kind: sess.Approval}}, "a d enter/i p s x h"},
	} {
		c.rec.ID = "s"
		tab := NewTab(plainStyles(), c.rec)
		tab.SetPending(c.waits)
		if got := strings.Join(tab.Scope().Short, " "); got != c.want {
			t.Errorf("%s %s: hints %q, want %q", c.rec.Status, c.rec.SubState, got, c.want)
		}
	}
}
