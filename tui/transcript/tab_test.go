package transcript

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
)

func kp(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	}
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

func TestInputSteersWhileRunningAndSendsWhileWaiting(t *testing.T) {
	tab := NewTab(plainStyles(), sess.Session{ID: "s", Title: "t", Agent: "demo", Status: sess.Running, SubState: sess.Active})
	tab.SetSize(60, 20)
	tab.Loaded(nil, 0, nil)
	tab.Focus()
	tab.HandleKey(kp("i"))
	if !tab.TakesText() {
		t.Fatal("i opens the input line")
	}
	for _, r := range "go left" {
		tab.HandleKey(kp(string(r)))
	}
	if !strings.Contains(ansi.Strip(strings.Join(tab.View(), "\n")), "steer › go left") {
		t.Fatalf("the line says it steers:\n%s", strings.Join(tab.View(), "\n"))
	}
	if got := tab.HandleKey(kp("enter")); got != (Input{ID: "s", Text: "go left", Steer: true}) {
		t.Fatalf("enter while running: %#v", got)
	}
	tab.SetRecord(sess.Session{ID: "s", Title: "t", Status: sess.Waiting})
	for _, r := range "next" {
		tab.HandleKey(kp(string(r)))
	}
	if got := tab.HandleKey(kp("enter")); got != (Input{ID: "s", Text: "next"}) {
		t.Fatalf("enter while waiting: %#v", got)
	}
	tab.HandleKey(kp("esc"))
	if tab.TakesText() {
		t.Fatal("esc leaves the input line")
	}
	if got := tab.HandleKey(kp("x")); got != (Control{"s", core.ActCancel}) {
		t.Fatalf("x: %#v", got)
	}
}

// While a session runs, enter steers and tab queues the text as its next
// prompt.
func TestTabQueuesWhileRunning(t *testing.T) {
	tab := NewTab(plainStyles(), sess.Session{ID: "s", Title: "t", Agent: "demo", Status: sess.Running, SubState: sess.Active})
	tab.SetSize(80, 20)
	tab.Loaded(nil, 0, nil)
	tab.HandleKey(kp("i"))
	if v := ansi.Strip(strings.Join(tab.View(), "\n")); !strings.Contains(v, "tab queues the next prompt") {
		t.Fatalf("the line should say what tab does:\n%s", v)
	}
	for _, r := range "then the docs" {
		tab.HandleKey(kp(string(r)))
	}
	if got := tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyTab}); got != (Input{ID: "s", Text: "then the docs"}) {
		t.Fatalf("tab while running should queue a prompt: %#v", got)
	}
	for _, r := range "go left" {
		tab.HandleKey(kp(string(r)))
	}
	if got := tab.HandleKey(kp("enter")); got != (Input{ID: "s", Text: "go left", Steer: true}) {
		t.Fatalf("enter while running should steer: %#v", got)
	}
}

func TestEventsBeforeTheLoadAreKeptAndOldOnesDropped(t *testing.T) {
	tab := NewTab(plainStyles(), sess.Session{ID: "s", Title: "t", Agent: "demo", Status: sess.Running})
	tab.SetSize(60, 20)
	m := sess.Message{ID: "m00001", Rev: 1, Role: sess.Assistant}
	tab.Apply(core.Event{Seq: 5, Kind: core.EvDelta, SessionID: "s", Delta: &core.Delta{MessageID: "m00001", Part: 0, Type: sess.TextPart, Text: "old "}})
	tab.Apply(core.Event{Seq: 9, Kind: core.EvDelta, SessionID: "s", Delta: &core.Delta{MessageID: "m00001", Part: 0, Type: sess.TextPart, Text: "new"}})
	m.Parts = []sess.Part{{Type: sess.TextPart, Text: "old "}}
	tab.Loaded([]sess.Message{m}, 7, nil)
	v := ansi.Strip(strings.Join(tab.View(), "\n"))
	if !strings.Contains(v, "old new") || strings.Contains(v, "old old") {
		t.Fatalf("only events after the load's seq apply:\n%s", v)
	}
}

func TestQueueSelectMoveRemove(t *testing.T) {
	tab := NewTab(plainStyles(), sess.Session{ID: "s", Title: "t", Agent: "demo", Status: sess.Running, SubState: sess.Active})
	tab.SetSize(60, 20)
	tab.Loaded(nil, 0, nil)
	tab.SetQueue([]sess.Control{{ID: "c1", Kind: "steer", Text: "one"}, {ID: "c2", Kind: "steer", Text: "two"}, {ID: "c3", Kind: "prompt", Text: "three"}})
	if a := tab.HandleKey(kp("K")); a != nil {
		t.Fatalf("the first input cannot move earlier: %#v", a)
	}
	tab.HandleKey(kp("}"))
	tab.HandleKey(kp("}"))
	if got := tab.HandleKey(kp("K")); got != (MoveQueued{ID: "s", ControlID: "c3", To: 1}) {
		t.Fatalf("K on the third: %#v", got)
	}
	// The engine's new queue arrives; the selection stays on c3.
	tab.SetQueue([]sess.Control{{ID: "c1", Kind: "steer", Text: "one"}, {ID: "c3", Kind: "prompt", Text: "three"}, {ID: "c2", Kind: "steer", Text: "two"}})
	if tab.QueueSelection() != 1 {
		t.Fatalf("selection %d, want 1", tab.QueueSelection())
	}
	if !strings.Contains(ansi.Strip(strings.Join(tab.View(), "\n")), "› 2. prompt: three") {
		t.Fatalf("the selected input is marked:\n%s", ansi.Strip(strings.Join(tab.View(), "\n")))
	}
	if got := tab.HandleKey(kp("J")); got != (MoveQueued{ID: "s", ControlID: "c3", To: 2}) {
		t.Fatalf("J: %#v", got)
	}
	if got := tab.HandleKey(kp("u")); got != (Unqueue{ID: "s", ControlID: "c3"}) {
		t.Fatalf("u removes the selected one: %#v", got)
	}
	if got := tab.HandleKey(kp("P")); got != (Grants{ID: "s", Title: "t"}) {
		t.Fatalf("P asks for the grants: %#v", got)
	}
}

// TestEditQueuedInPlace: e on the selected queued prompt, or up in an
// empty input line, puts its text in the line; enter saves it in its
// place, esc leaves it as it was, and the line gets back what it held.
func TestEditQueuedInPlace(t *testing.T) {
	tab := NewTab(plainStyles(), sess.Session{ID: "s", Title: "t", Agent: "demo", Status: sess.Running, SubState: sess.Active})
	tab.SetSize(80, 20)
	tab.Loaded(nil, 0, nil)
	tab.SetQueue([]sess.Control{{ID: "c1", Kind: sess.CtlPrompt, Text: "one"}, {ID: "c2", Kind: sess.CtlModel, Text: "m"},
		{ID: "c3", Kind: sess.CtlPrompt, Text: "three"}})
	view := func() string { return ansi.Strip(strings.Join(tab.View(), "\n")) }

	// e on the selected (the first): the line opens with its text.
	if a := tab.HandleKey(kp("e")); a != nil || tab.Editing() != "c1" || !tab.TakesText() {
		t.Fatalf("e: %#v, editing %q", a, tab.Editing())
	}
	if v := view(); !strings.Contains(v, "edit 1 › one") || !strings.Contains(v, "✎ 1. prompt: one") {
		t.Fatalf("the line edits the first input:\n%s", v)
	}
	for _, r := range " more" {
		tab.HandleKey(kp(string(r)))
	}
	if got := tab.HandleKey(kp("enter")); got != (EditQueued{ID: "s", ControlID: "c1", Text: "one more"}) {
		t.Fatalf("enter saves the edit: %#v", got)
	}
	if tab.TakesText() || tab.Editing() != "" {
		t.Fatal("the line was closed before the edit: it closes again")
	}

	// A model change has no text to edit.
	tab.HandleKey(kp("}"))
	if tab.HandleKey(kp("e")); tab.Editing() != "" {
		t.Fatal("e on a model change should not edit it")
	}

	// up in the open, empty line takes the last prompt; esc leaves it.
	tab.HandleKey(kp("i"))
	tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyUp})
	if tab.Editing() != "c3" || !strings.Contains(view(), "edit 3 › three") {
		t.Fatalf("up edits the last prompt (editing %q):\n%s", tab.Editing(), view())
	}
	tab.HandleKey(kp("x"))
	if a := tab.HandleKey(kp("esc")); a != nil || tab.Editing() != "" || !tab.TakesText() {
		t.Fatalf("esc leaves the edit, the line stays open: %#v", a)
	}
	if v := view(); !strings.Contains(v, "steer ›") || strings.Contains(v, "threex") {
		t.Fatalf("the line is empty again:\n%s", v)
	}
	// Saved unchanged, nothing is sent.
	tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyUp})
	if a := tab.HandleKey(kp("enter")); a != nil {
		t.Fatalf("an unchanged edit sends nothing: %#v", a)
	}

	// What was typed before the edit comes back after it.
	for _, r := range "draft" {
		tab.HandleKey(kp(string(r)))
	}
	tab.HandleKey(kp("esc"))
	tab.HandleKey(kp("e"))
	if tab.Editing() != "c3" {
		t.Fatalf("e edits the selected input, editing %q", tab.Editing())
	}
	tab.HandleKey(kp("esc"))
	tab.HandleKey(kp("i"))
	if got := tab.HandleKey(kp("enter")); got != (Input{ID: "s", Text: "draft", Steer: true}) {
		t.Fatalf("the draft is back in the line: %#v", got)
	}

	// The edited input leaves the queue (a turn took it): the text stays
	// in the line, to send as a new input.
	tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyUp})
	tab.HandleKey(kp("!"))
	tab.SetQueue([]sess.Control{{ID: "c1", Kind: sess.CtlPrompt, Text: "one more"}})
	if tab.Editing() != "" || !strings.Contains(view(), "left the queue") {
		t.Fatalf("a taken input is no longer edited:\n%s", view())
	}
	if got := tab.HandleKey(tea.KeyPressMsg{Code: tea.KeyTab}); got != (Input{ID: "s", Text: "three!"}) {
		t.Fatalf("its text goes as a new input: %#v", got)
	}
	if strings.Contains(view(), "left the queue") {
		t.Fatalf("the note goes with the text:\n%s", view())
	}
}
