package core

import (
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// TestFireEventPublishesSignal: FireEvent wakes the sessions parked on the
// event and publishes the event itself (name, data, the count woken, an id
// of its own per firing) for the engine's other listeners; an event
// nobody waits for is published too.
func TestFireEventPublishesSignal(t *testing.T) {
	r := newRig(t, MapResolver{"demo": &harness.Demo{Event: "deploy"}})
	s := r.create(CreateOptions{Agent: "demo", Instructions: "go", Approval: PolicyAuto, AutoStart: true})
	r.until("parked on deploy", func(ev Event) bool {
		if ev.Kind == EvInteraction && ev.Interaction.Kind == sessions.Question && !ev.Interaction.Resolved {
			if err := r.e.As("").Answer(s.ID, ev.Interaction.ID, Answer{Text: "hello"}); err != nil {
				t.Fatal(err)
			}
		}
		return ev.Kind == EvInteraction && ev.Interaction.Kind == sessions.Park && ev.Interaction.Event == "deploy" && !ev.Interaction.Resolved
	})
	if n := r.e.FireEvent("deploy", `{"v":7}`); n != 1 {
		t.Fatalf("woke %d, want 1", n)
	}
	first := r.until("the signal", func(ev Event) bool { return ev.Kind == EvSignal })
	sig := first.Signal
	if sig == nil || sig.Name != "deploy" || sig.Data != `{"v":7}` || sig.Woken != 1 || sig.ID == "" || first.Text != "deploy" {
		t.Fatalf("signal %+v (text %q)", sig, first.Text)
	}
	if n := r.e.FireEvent("deploy", ""); n != 0 {
		t.Fatalf("woke %d again", n)
	}
	second := r.until("the second signal", func(ev Event) bool { return ev.Kind == EvSignal })
	if second.Signal.Woken != 0 || second.Signal.ID == sig.ID || second.Seq <= first.Seq {
		t.Fatalf("second signal %+v after %+v", second.Signal, sig)
	}
}
