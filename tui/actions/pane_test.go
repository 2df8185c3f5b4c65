package actions

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
)

func kp(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

func items() []Item {
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	dl := t0.Add(90 * time.Second)
	s := sess.Session{ID: "s1", Title: "fix", Status: sess.Running, SubState: sess.Parked}
	w := sess.Session{ID: "s2", Title: "chat", Status: sess.Waiting, WaitReason: sess.WaitAwaitingInput, Mode: sess.Continuous}
	return []Item{
		{Session: s, Interaction: &sess.Interaction{ID: "i1", Kind: sess.Approval, Tool: "exec", Command: "go test ./...", Time: t0}},
		{Session: s, Interaction: &sess.Interaction{ID: "i2", Kind: sess.Question, Text: "Which one?", Choices: []string{"a", "b"}, Default: "a", Time: t0}},
		{Session: w},
		{Session: s, Interaction: &sess.Interaction{ID: "i3", Kind: sess.Park, Deadline: &dl, Time: t0}},
	}
}

func TestKeysAnswerTheSelectedItem(t *testing.T) {
	p := New(themes.Build(themes.Dark(), true))
	p.SetSize(40, 30)
	p.SetNow(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	p.Focus()
	p.Set(items())
	v := ansi.Strip(strings.Join(p.View(), "\n"))
	for _, want := range []string{"▲ fix · exec", "$ go test ./...", "a allow", "? fix asks", "◆ chat waits", "1:30 left"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if got := p.HandleKey(kp("A")); got != (Decide{"s1", "fix", "i1", sess.AllowSession, false, "exec `go test ./...`"}) {
		t.Fatalf("A: %#v", got)
	}
	if got, ok := p.HandleKey(kp("D")).(Decide); !ok || !got.WithMessage || got.Decision != sess.Deny {
		t.Fatalf("D: %#v", got)
	}
	if got := p.HandleKey(kp("t")); got != nil {
		t.Fatalf("t means nothing on an approval: %#v", got)
	}
	p.HandleKey(kp("down"))
	if got, ok := p.HandleKey(kp("t")).(Answer); !ok || !got.TakeDefault || got.Default != "a" {
		t.Fatalf("t on a question: %#v", got)
	}
	p.HandleKey(kp("down"))
	if got := p.HandleKey(kp("c")); got != (Control{"s2", "chat", "close"}) {
		t.Fatalf("c on a waiting continuous session: %#v", got)
	}
	if got := p.HandleKey(kp("enter")); got != (SendNext{"s2", "chat"}) {
		t.Fatalf("enter on a waiting session: %#v", got)
	}
	p.HandleKey(kp("down"))
	if got := p.HandleKey(kp("w")); got != (Control{"s1", "fix", "nudge"}) {
		t.Fatalf("w on a park: %#v", got)
	}
	// A rebuild without the approval keeps the selection on the park.
	p.Set(items()[1:])
	if it, _ := p.Selected(); it.Key() != "i3" {
		t.Fatalf("selection moved to %s", it.Key())
	}
}

// After an answer the selection stays with the session it was on: on its
// next item when it has one, else on the item that took its place until
// the session's next item comes, unless the operator moves meanwhile.
func TestSelectionStaysWithTheSession(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	a := sess.Session{ID: "a", Title: "alpha"}
	b := sess.Session{ID: "b", Title: "beta"}
	it := func(s sess.Session, id string, sec int) Item {
		return Item{Session: s, Interaction: &sess.Interaction{ID: id, Kind: sess.Approval, Tool: "exec", Command: id,
			Time: t0.Add(time.Duration(sec) * time.Second)}}
	}
	p := New(themes.Build(themes.Dark(), true))
	p.SetSize(40, 30)
	p.Set([]Item{it(b, "b1", 0), it(a, "a1", 1), it(a, "a2", 2), it(b, "b2", 3)})
	p.Scroll(1) // a1
	p.Set([]Item{it(b, "b1", 0), it(a, "a2", 2), it(b, "b2", 3)})
	if s, _ := p.Selected(); s.Key() != "a2" {
		t.Fatalf("after a1 was answered: %s, want a's next item a2", s.Key())
	}
	p.Set([]Item{it(b, "b1", 0), it(b, "b2", 3)})
	if s, _ := p.Selected(); s.Key() != "b2" {
		t.Fatalf("a has nothing left: %s, want the nearest item", s.Key())
	}
	p.Set([]Item{it(b, "b1", 0), it(b, "b2", 3), it(a, "a3", 4)})
	if s, _ := p.Selected(); s.Key() != "a3" {
		t.Fatalf("a's next approval came: %s, want it selected again", s.Key())
	}
	// The operator moving the selection stops the following.
	p.Set([]Item{it(b, "b1", 0), it(b, "b2", 3)})
	p.Scroll(-1) // b1, by hand
	p.Set([]Item{it(b, "b1", 0), it(b, "b2", 3), it(a, "a4", 5)})
	if s, _ := p.Selected(); s.Key() != "b1" {
		t.Fatalf("after the operator moved: %s, want b1 kept", s.Key())
	}
}

// W keeps a workspace rule for the approval's command (or path), never for
// a protected path's.
func TestAlwaysHere(t *testing.T) {
	s := sess.Session{ID: "s1", Title: "fix"}
	k := DefaultKeyMap()
	w := tea.KeyPressMsg{Code: 'W', Text: "W"}
	if got := Respond(k, s, sess.Interaction{ID: "i1", Kind: sess.Approval, Tool: "exec", Command: "go test ./..."}, w); got != (AlwaysHere{"s1", "fix", "i1", "exec", "go test ./..."}) {
		t.Fatalf("W on a command: %#v", got)
	}
	if got := Respond(k, s, sess.Interaction{ID: "i2", Kind: sess.Approval, Tool: "write_file", Path: "docs/a.md"}, w); got != (AlwaysHere{"s1", "fix", "i2", "write_file", "docs/a.md"}) {
		t.Fatalf("W on a path: %#v", got)
	}
	if got := Respond(k, s, sess.Interaction{ID: "i3", Kind: sess.Approval, Tool: "write_file", Path: ".atelier.toml", Protected: true}, w); got != nil {
		t.Fatalf("W on a protected path: %#v", got)
	}
}
