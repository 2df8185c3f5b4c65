package core

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestClearStartsAfresh: after a clear the model is shown only what was
// said since, also after a restart; the transcript keeps everything with
// the marker, and the control is recorded with its client.
func TestClearStartsAfresh(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Text: "answer 1"}, {Text: "answer 2"}, {Text: "answer 3"}},
		Cap: harness.Caps{Boundary: harness.StepBoundary}}
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "the task"}).ID
	r.until("turn 1", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 1 && ev.Session.Status == sessions.Waiting
	})
	if _, err := r.e.As("cli").Clear(id); err != nil {
		t.Fatal(err)
	}
	r.until("marker", func(ev Event) bool {
		return ev.Kind == EvMessage && ev.SessionID == id && ev.Message.Role == sessions.Cleared
	})
	if _, err := r.e.As("").Send(id, "fresh"); err != nil {
		t.Fatal(err)
	}
	r.until("turn 2", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 2 && ev.Session.Status == sessions.Waiting
	})
	if got := historyText(m.Requests()[len(m.Requests())-1].History); got != "user:fresh" {
		t.Fatalf("history after clear: %q", got)
	}
	msgs, _, _ := r.e.Transcript(id)
	if len(msgs) < 5 || msgs[0].Text() != "the task" || msgs[2].Role != sessions.Cleared {
		t.Fatalf("transcript %+v", msgs)
	}
	var cleared *sessions.Control
	applied := false
	ctls, _, err := r.e.store.Log(id).Controls()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range ctls {
		if c.Kind == sessions.CtlClear && c.Outcome == "" {
			cleared = &ctls[i]
		}
		applied = applied || c.Kind == sessions.CtlClear && c.Outcome == "applied"
	}
	if cleared == nil || cleared.Client != "cli" || !applied {
		t.Fatalf("clear not recorded with its client: %+v", ctls)
	}

	// A restarted engine keeps the boundary.
	closeEngine(t, r.e)
	r = openRig(t, ws, MapResolver{"a": m})
	if _, err := r.e.As("").Send(id, "again"); err != nil {
		t.Fatal(err)
	}
	r.until("turn 3", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 3 && ev.Session.Status == sessions.Waiting
	})
	if got := historyText(m.Requests()[len(m.Requests())-1].History); got != "user:fresh|assistant:answer 2|user:again" {
		t.Fatalf("history after restart: %q", got)
	}
}

// TestClearDropsAgentSession: an agent that keeps its own history is
// started without its old session token after a clear.
func TestClearDropsAgentSession(t *testing.T) {
	a := &scripted.Agent{Script: []scripted.Step{{Text: "one", Resume: "agent-7"}, {Text: "two", Resume: "agent-7"}, {Text: "three", Resume: "agent-8"}}}
	r := newRig(t, MapResolver{"a": a})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "go"}).ID
	r.until("turn 1", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 1 && ev.Session.Status == sessions.Waiting
	})
	if _, err := r.e.As("").Send(id, "more"); err != nil {
		t.Fatal(err)
	}
	r.until("turn 2", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 2 && ev.Session.Status == sessions.Waiting
	})
	if _, err := r.e.As("").Clear(id); err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.As("").Send(id, "new start"); err != nil {
		t.Fatal(err)
	}
	r.until("turn 3", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 3 && ev.Session.Status == sessions.Waiting
	})
	reqs := a.Requests()
	if reqs[1].Resume != "agent-7" || reqs[2].Resume != "" {
		t.Fatalf("resume tokens %q then %q", reqs[1].Resume, reqs[2].Resume)
	}
	if s, _ := r.e.Session(id); s.AgentResume != "agent-8" {
		t.Fatalf("session keeps %q", s.AgentResume)
	}
}

// TestClearRefusedWhenEnded: an ended session has nothing to clear.
func TestClearRefusedWhenEnded(t *testing.T) {
	r := newRig(t, MapResolver{"a": &scripted.Agent{}})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "go"}).ID
	r.status(id, sessions.Ended)
	if _, err := r.e.As("").Clear(id); err == nil || !strings.Contains(err.Error(), "steer") && !strings.Contains(err.Error(), "ended") {
		t.Fatalf("clear of an ended session: %v", err)
	}
}

func historyText(h []sessions.Message) string {
	var texts []string
	for _, msg := range h {
		texts = append(texts, string(msg.Role)+":"+msg.Text())
	}
	return strings.Join(texts, "|")
}
