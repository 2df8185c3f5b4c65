package cli

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// TestEventsFire: a session parked on a named event (the demo's wait)
// wakes when `events fire` fires it through the workspace's host, and its
// wait returns the data; a bad name or data is a usage error that wakes
// nothing.
func TestEventsFire(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	e := ownerWith(t, ws, &harness.Demo{Event: "deploy-done"})
	rec, err := e.Create(core.CreateOptions{Agent: "demo", Instructions: "write a note", Approval: core.PolicyAuto, AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	id := rec.ID
	parked := func() bool {
		for _, it := range e.Snapshot().Interactions {
			if it.SessionID != id {
				continue
			}
			if it.Kind == sessions.Question {
				if err := e.As("").Answer(id, it.ID, core.Answer{Text: "hello"}); err != nil {
					t.Fatal(err)
				}
			}
			if it.Kind == sessions.Park && it.Event == "deploy-done" {
				return true
			}
		}
		return false
	}
	poll.Until(t, "parked on deploy-done", parked)
	cli(t, "events", "fire", "not an event", "-w", ws).want(t, ExitUsage)
	cli(t, "events", "fire", "deploy-done", "--data", "{not json", "-w", ws).want(t, ExitUsage)
	r := cli(t, "events", "fire", "other", "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "woke 0") || !parked() {
		t.Fatalf("another event woke the session: %q", r.out)
	}
	r = cli(t, "events", "fire", "deploy-done", "--data", `{"version": 7}`, "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "woke 1 parked session") {
		t.Errorf("fire printed %q", r.out)
	}
	poll.Until(t, "the end", func() bool { return record(t, ws, id).Status == sessions.Ended })
	msgs, _, err := e.Transcript(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Tool != nil && p.Tool.Name == "wait" {
				if !strings.Contains(p.Tool.Output, "deploy-done fired with data: {\"version\":7}") {
					t.Errorf("the wait returned %q", p.Tool.Output)
				}
				return
			}
		}
	}
	t.Fatal("no wait call in the transcript")
}
