package core

import (
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestFocusedEngineRunsOnlyItsOwn: a Focused engine (a headless command's)
// leaves alone a session no process runs, here one waiting to auto-start:
// it neither claims nor starts it. Once the command focuses on it (it
// follows it), the engine runs it like one it created.
func TestFocusedEngineRunsOnlyItsOwn(t *testing.T) {
	ws := t.TempDir()
	agents := MapResolver{"a": &scripted.Model{Script: []scripted.Step{{Text: "done"}}}}
	p, err := Open(ws, Options{Agents: agents, Passive: true, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	other, err := p.Create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "someone else's"})
	if err != nil {
		t.Fatal(err)
	}
	closeEngine(t, p)

	e, err := Open(ws, Options{Agents: agents, Focused: true, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	_, sub := e.Subscribe()
	r := &rig{t: t, ws: ws, e: e, sub: sub}
	t.Cleanup(func() { closeEngine(t, e) })
	if rec, err := e.Session(other.ID); err != nil || rec.Status != sessions.Created {
		t.Fatalf("after a focused open the other session is %s (%v), want CREATED", rec.Status, err)
	}
	if lease, held := ReadLease(e.Store().Dir(other.ID)); held {
		t.Fatalf("the focused engine claimed the other session: %+v", lease)
	}
	own := r.create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "mine"})
	r.status(own.ID, sessions.Ended)
	if rec, _ := e.Session(other.ID); rec.Status != sessions.Created {
		t.Fatalf("while the engine ran its own, the other session became %s", rec.Status)
	}

	e.Focus(other.ID)
	r.status(other.ID, sessions.Ended)
}
