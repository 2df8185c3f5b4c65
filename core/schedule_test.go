package core

import (
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

func TestStartAt(t *testing.T) {
	r := newRig(t, MapResolver{"a": &scripted.Model{}})
	at := time.Now().Add(300 * time.Millisecond)
	id := r.create(CreateOptions{Agent: "a", StartAt: &at}).ID
	if s, _ := r.e.Session(id); s.Status != sessions.Created {
		t.Fatalf("started before its time: %s", s.Status)
	}
	s := r.status(id, sessions.Ended)
	if s.EndReason != sessions.Completed || time.Now().Before(at) {
		t.Fatalf("%+v at %v", s, time.Now())
	}
}

// TestParkReleasesWorker: with one worker, a session parked on an approval
// does not keep another from running.
func TestParkReleasesWorker(t *testing.T) {
	asks := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "true"})}},
	}}
	e, err := Open(t.TempDir(), Options{Agents: MapResolver{"asks": asks, "quick": &scripted.Model{}}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	_, sub := e.Subscribe()
	r := &rig{t: t, e: e, sub: sub}
	a := r.create(CreateOptions{Agent: "asks", AutoStart: true}).ID
	r.interaction(a, sessions.Approval)
	b := r.create(CreateOptions{Agent: "quick", AutoStart: true}).ID
	if s := r.status(b, sessions.Ended); s.EndReason != sessions.Completed {
		t.Fatalf("%+v", s)
	}
	if s, _ := e.Session(a); s.SubState != sessions.Parked {
		t.Fatalf("first session %s %s", s.Status, s.SubState)
	}
}

// TestManySessionsAndSubscribers runs many demo sessions at once under the
// race detector, with subscribers that drain at different speeds.
func TestManySessionsAndSubscribers(t *testing.T) {
	demo := &harness.Demo{Pace: 50 * time.Microsecond, Wait: 5 * time.Millisecond}
	e, err := Open(t.TempDir(), Options{Agents: DemoResolver{Demo: demo}, Workers: 3, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	var answers sync.WaitGroup
	defer answers.Wait() // before the engine closes
	stop := make(chan struct{})
	for i := 0; i < 5; i++ {
		_, sub := e.Subscribe()
		go func(slow time.Duration) {
			for {
				select {
				case <-stop:
					sub.Close()
					return
				case <-sub.Ready():
					sub.Drain()
					time.Sleep(slow)
				}
			}
		}(time.Duration(i) * time.Millisecond)
	}
	_, sub := e.Subscribe()
	r := &rig{t: t, e: e, sub: sub}
	var ids []string
	for i := 0; i < 12; i++ {
		ids = append(ids, r.create(CreateOptions{Agent: "demo", AutoStart: true, Approval: PolicyAuto, Instructions: "go"}).ID)
	}
	ended := 0
	r.until("all ended", func(ev Event) bool {
		if ev.Kind == EvInteraction && ev.Interaction.Kind == sessions.Question && !ev.Interaction.Resolved {
			sid, iid := ev.SessionID, ev.Interaction.ID
			answers.Go(func() {
				if err := e.As("").Answer(sid, iid, Answer{By: "test"}); err != nil {
					t.Errorf("answer %s: %v", sid, err)
				}
			})
		}
		if ev.Kind == EvSession && ev.Session.Status == sessions.Ended {
			ended++
		}
		return ended == len(ids)
	})
	close(stop)
	for _, id := range ids {
		if s, _ := e.Session(id); s.EndReason != sessions.Completed {
			t.Fatalf("%s ended %s: %s", id, s.EndReason, s.Error)
		}
	}
}
