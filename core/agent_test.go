package core

import (
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestAgentHarnessApprovalsAndBoundaries drives an agent that runs its own
// tools: its permission request parks the session as an approval, a denial
// reaches the agent, a pause waits for the end of the agent's turn, and a
// steer queued meanwhile is the next turn's input.
func TestAgentHarnessApprovalsAndBoundaries(t *testing.T) {
	g := make(chan struct{})
	a := &scripted.Agent{Script: []scripted.Step{
		{Text: "editing", Approvals: []harness.ApprovalRequest{{ToolCall: "t1", Tool: "Bash", Command: "rm -rf build"}},
			Calls: []harness.ToolCall{toolCall("t1", "Bash", map[string]any{"command": "rm -rf build"})}, Gate: g},
		{Text: "second turn"},
	}}
	r := newRig(t, MapResolver{"claude": a})
	id := r.create(CreateOptions{Agent: "claude", AutoStart: true, Mode: sessions.Continuous, Instructions: "clean"}).ID
	it := r.interaction(id, sessions.Approval)
	if it.Command != "rm -rf build" || it.Tool != "Bash" {
		t.Fatalf("approval %+v", it)
	}
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.Deny, Message: "keep build"}); err != nil {
		t.Fatal(err)
	}
	rc, err := r.e.As("").Pause(id)
	if err != nil || rc.When != "at the end of the agent's turn" {
		t.Fatalf("pause %+v %v", rc, err)
	}
	rc, err = r.e.As("").Steer(id, "also tidy")
	if err != nil || rc.When != "at the end of the agent's turn" {
		t.Fatalf("steer %+v %v", rc, err)
	}
	close(g)
	// The turn's end is the agent's boundary: the session holds there,
	// before the queued steer; resuming runs it as the next turn.
	s := r.status(id, sessions.Paused)
	if !s.BetweenTurns || s.Turns != 1 {
		t.Fatalf("paused %+v", s)
	}
	if _, err := r.e.As("").Resume(id); err != nil {
		t.Fatal(err)
	}
	r.until("second turn", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 2
	})
	r.status(id, sessions.Waiting)
	msgs, _, _ := r.e.Transcript(id)
	ts := tools(msgs)
	if len(ts) != 1 || ts[0].State != sessions.ToolDenied {
		t.Fatalf("agent's tool call: %+v", ts)
	}
	reqs := a.Requests()
	if len(reqs) != 2 || reqs[1].Input != "also tidy" {
		t.Fatalf("turn inputs %+v", reqs)
	}
}
