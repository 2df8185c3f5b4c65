package keys

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

func TestConflictsFindsASharedKey(t *testing.T) {
	s := Scope{Name: "x", Bindings: []key.Binding{New("allow", "a"), New("archive", "a", "A"), New("deny", "d")}}
	got := s.Conflicts()
	if len(got) != 1 || !strings.HasPrefix(got[0], "a: allow, archive") {
		t.Fatalf("conflicts = %q", got)
	}
	if c := (Scope{Bindings: []key.Binding{New("up", "up", "k"), New("down", "down", "j")}}).Conflicts(); len(c) != 0 {
		t.Fatalf("false conflict: %q", c)
	}
}

func TestShadowed(t *testing.T) {
	global := Scope{Bindings: []key.Binding{New("quit", "q")}}
	pane := Scope{Bindings: []key.Binding{New("queue", "q"), New("up", "k")}}
	if got := pane.Shadowed(global); len(got) != 1 || !strings.Contains(got[0], "queue") {
		t.Fatalf("shadowed = %q", got)
	}
}

func TestLabelAndMarkdown(t *testing.T) {
	if l := Label([]string{"up", "k"}); l != "↑/k" {
		t.Errorf("label %q", l)
	}
	md := Markdown([]Scope{{Name: "Global", About: "Always.", Bindings: []key.Binding{New("quit", "q", "ctrl+c")}}})
	for _, want := range []string{"## Global", "Always.", "| `q/ctrl+c` | quit |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

type testKeyMap struct {
	Quit, QueueUp, PageDown key.Binding
	Other                   string
	hidden                  key.Binding
}

func TestActionsNameTheFieldsAndRebindThem(t *testing.T) {
	// hidden is bound too: an unexported field is never an action.
	km := testKeyMap{Quit: New("quit", "q"), QueueUp: New("move up", "K"), PageDown: New("page down", "pgdown"), hidden: New("hidden", "h")}
	acts := Actions("session", &km)
	var names []string
	for _, a := range acts {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, " "); got != "session.quit session.queue_up session.page_down" {
		t.Fatalf("names: %s", got)
	}
	Rebind(acts[1].Binding, "ctrl+up")
	if km.QueueUp.Keys()[0] != "ctrl+up" || km.QueueUp.Help().Key != "ctrl+up" || km.QueueUp.Help().Desc != "move up" {
		t.Fatalf("rebinding changes the keymap's own binding: %+v %v", km.QueueUp.Help(), km.QueueUp.Keys())
	}
	s := Scope{Name: "x", Bindings: []key.Binding{km.PageDown, km.Quit}}.Named("", &km)
	if strings.Join(s.Names, " ") != "page_down quit" {
		t.Fatalf("named: %q", s.Names)
	}
	md := Markdown([]Scope{s})
	if !strings.Contains(md, "| `pgdown` | page down | `page_down` |") {
		t.Fatalf("the reference names each action:\n%s", md)
	}
}
