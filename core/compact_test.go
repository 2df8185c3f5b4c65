package core

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

func TestCompactKeepsTaskAndLastTurns(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{
		{Text: "answer 1"}, {Text: "answer 2"}, {Text: "answer 3"},
		{Text: "SUMMARY: did 1"}, // the compaction's model call
		{Text: "answer 4"},
	}, Cap: harness.Caps{Boundary: harness.StepBoundary, Compact: true}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "the task"}).ID
	for i, p := range []string{"", "second", "third"} {
		if p != "" {
			if _, err := r.e.As("").Send(id, p); err != nil {
				t.Fatal(err)
			}
		}
		want := i + 1
		r.until("turn done", func(ev Event) bool {
			return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == want && ev.Session.Status == sessions.Waiting
		})
	}
	if _, err := r.e.As("").Compact(id); err != nil {
		t.Fatal(err)
	}
	r.until("summary", func(ev Event) bool {
		return ev.Kind == EvMessage && ev.SessionID == id && ev.Message.Role == sessions.Summary && ev.Message.Covers != ""
	})
	if _, err := r.e.As("").Send(id, "fourth"); err != nil {
		t.Fatal(err)
	}
	r.until("turn 4", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 4 && ev.Session.Status == sessions.Waiting
	})
	reqs := m.Requests()
	h := reqs[len(reqs)-1].History
	var texts []string
	for _, msg := range h {
		texts = append(texts, string(msg.Role)+":"+msg.Text())
	}
	got := strings.Join(texts, "|")
	want := "user:the task|user:Summary of the conversation so far:\n\nSUMMARY: did 1|user:second|assistant:answer 2|user:third|assistant:answer 3|user:fourth"
	if got != want {
		t.Fatalf("history after compaction:\n got %q\nwant %q", got, want)
	}
	// The transcript itself keeps everything.
	msgs, _, _ := r.e.Transcript(id)
	if msgs[1].Text() != "answer 1" {
		t.Fatalf("transcript lost history: %+v", msgs[1])
	}
}

func TestCompactRefusedForAgents(t *testing.T) {
	a := &scripted.Agent{}
	r := newRig(t, MapResolver{"a": a})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous}).ID
	r.status(id, sessions.Waiting)
	if _, err := r.e.As("").Compact(id); err != nil {
		t.Fatal(err)
	}
	r.until("refusal", func(ev Event) bool {
		return ev.Kind == EvNotice && strings.Contains(ev.Text, "not supported")
	})
}
