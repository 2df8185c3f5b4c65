package core

import (
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

func TestWatchdogRepeatedCallThenNudge(t *testing.T) {
	same := func(id string) scripted.Step {
		return scripted.Step{Calls: []harness.ToolCall{toolCall(id, "list", map[string]any{"path": "."})}}
	}
	// The fourth call waits for the test, so the nudge is answered while
	// the turn still runs and reaches the model at the next step.
	hold := same("c4")
	hold.Gate = make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{same("c1"), same("c2"), same("c3"), hold, {Text: "ok, new approach"}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous}).ID
	it := r.interaction(id, sessions.Stuck)
	if !strings.Contains(it.Text, "repeated the same list call 3 times") {
		t.Fatalf("stuck report %q", it.Text)
	}
	acts := r.e.Actions()
	found := false
	for _, a := range acts {
		if a.Kind == IsStuck && a.SessionID == id {
			found = true
		}
	}
	if !found {
		t.Fatalf("stuck session not in Action required: %+v", acts)
	}
	if err := r.e.As("").Answer(id, it.ID, Answer{Text: StuckNudge}); err != nil {
		t.Fatal(err)
	}
	close(hold.Gate)
	r.status(id, sessions.Waiting)
	var steered bool
	for _, req := range m.Requests() {
		for _, msg := range req.History {
			if msg.Role == sessions.User && strings.Contains(msg.Text(), "You seem stuck") {
				steered = true
			}
		}
	}
	if !steered {
		t.Fatal("the nudge never reached the model")
	}
}

func TestWatchdogNoProgress(t *testing.T) {
	m, _ := gated()
	e, err := Open(t.TempDir(), Options{Agents: MapResolver{"a": m}, StuckAfter: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	_, sub := e.Subscribe()
	r := &rig{t: t, e: e, sub: sub}
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	it := r.interaction(id, sessions.Stuck)
	if !strings.Contains(it.Text, "no progress") {
		t.Fatalf("stuck report %q", it.Text)
	}
	if err := e.As("").Answer(id, it.ID, Answer{Text: StuckCancel}); err != nil {
		t.Fatal(err)
	}
	if s := r.status(id, sessions.Ended); s.EndReason != sessions.Cancelled {
		t.Fatalf("%+v", s)
	}
}
