package core

import (
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestQueueMovesAndRevokesSurviveReopen: what an operator did to the queue
// and to the grants is what the next engine on the workspace finds.
func TestQueueMovesAndRevokesSurviveReopen(t *testing.T) {
	ws := t.TempDir()
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "true"})}},
	}}
	r := openRig(t, ws, MapResolver{"a": m, "b": &scripted.Model{}})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous}).ID
	it := r.interaction(id, sessions.Approval)
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowSession}); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Waiting)
	if err := r.e.As("").Revoke(id, "exec:true"); err != nil {
		t.Fatal(err)
	}
	q := r.create(CreateOptions{Agent: "b", Mode: sessions.Continuous}).ID
	for _, p := range []string{"alpha", "beta", "gamma"} {
		if _, err := r.e.As("").Send(q, p); err != nil {
			t.Fatal(err)
		}
	}
	queue, _ := r.e.Queue(q)
	if err := r.e.As("").MoveQueued(q, queue[2].ID, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}

	e, err := Open(ws, Options{Agents: MapResolver{"a": m, "b": &scripted.Model{}}, Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	if g, _ := e.Grants(id); len(g) != 0 {
		t.Fatalf("revoked grant back after reopen: %v", g)
	}
	queue, _ = e.Queue(q)
	var got []string
	for _, c := range queue {
		got = append(got, c.Text)
	}
	if len(got) != 3 || got[0] != "gamma" || got[1] != "alpha" || got[2] != "beta" {
		t.Fatalf("queue after reopen: %v", got)
	}
}

// TestCommitSurvivesClose: a turn that ends just before the engine closes
// still gets its history commit.
func TestCommitSurvivesClose(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.status(id, sessions.Ended)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ws, Options{Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	log, err := e.History().Log(t.Context(), id)
	if err != nil || len(log) != 1 {
		t.Fatalf("history after close: %v %v", log, err)
	}
}
