package core

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// refusingSteerer is an agent that takes steers mid-turn by its own input,
// but refuses this one (its turn is over, say).
type refusingSteerer struct{ *scripted.Agent }

func (a refusingSteerer) Caps() harness.Caps {
	return harness.Caps{Boundary: harness.TurnBoundary, SteerMidTurn: true}
}

func (a refusingSteerer) Steer(context.Context, string, string) error {
	return errors.New("no turn in flight")
}

// TestRefusedSteerIsQueuedAgain: a steer the agent did not take is not
// lost: it becomes the session's next input.
func TestRefusedSteerIsQueuedAgain(t *testing.T) {
	g := make(chan struct{})
	a := refusingSteerer{&scripted.Agent{Script: []scripted.Step{{Text: "working", Gate: g}, {Text: "took the steer"}}}}
	r := newRig(t, MapResolver{"a": a})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "go"}).ID
	r.streaming(id)
	if _, err := r.e.As("").Steer(id, "look at the tests too"); err != nil {
		t.Fatal(err)
	}
	r.until("the refusal", func(ev Event) bool { return ev.Kind == EvQueue && ev.SessionID == id && len(ev.Queue) == 1 })
	close(g)
	deadline := time.Now().Add(10 * time.Second)
	for {
		reqs := a.Requests()
		if len(reqs) == 2 {
			if reqs[1].Input != "look at the tests too" {
				t.Fatalf("the second turn's input is %q", reqs[1].Input)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the refused steer never ran (%d turns)", len(reqs))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
