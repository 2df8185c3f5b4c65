package core

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// TestLateSubscriberSeesEverythingOnce attaches subscribers while a session
// streams: each one's snapshot plus the events after it rebuilds exactly
// the transcript the engine persisted, so nothing was lost or applied twice.
func TestLateSubscriberSeesEverythingOnce(t *testing.T) {
	demo := &harness.Demo{Pace: 200 * time.Microsecond, Wait: 10 * time.Millisecond}
	e, err := Open(t.TempDir(), Options{Agents: DemoResolver{Demo: demo}})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	var answers sync.WaitGroup
	defer answers.Wait() // before the engine closes
	rec, _ := e.Create(CreateOptions{Agent: "demo", AutoStart: true, Approval: PolicyAuto, Instructions: "go"})
	var wg sync.WaitGroup
	results := make([]*replay, 8)
	for i := range results {
		time.Sleep(time.Duration(i) * 3 * time.Millisecond)
		snap, sub := e.Subscribe(rec.ID)
		tr := newReplay(rec.ID, snap.Transcripts[rec.ID])
		results[i] = tr
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sub.Close()
			last := snap.Seq
			for range sub.Ready() {
				for _, ev := range sub.Drain() {
					if ev.Seq <= last {
						panic(fmt.Sprintf("event %d after %d: replayed or out of order", ev.Seq, last))
					}
					last = ev.Seq
					tr.apply(ev)
					if ev.Kind == EvInteraction && ev.Interaction.Kind == sessions.Question && !ev.Interaction.Resolved && i == 0 {
						iid := ev.Interaction.ID
						answers.Go(func() {
							if err := e.As("").Answer(rec.ID, iid, Answer{By: "test"}); err != nil {
								t.Errorf("answer: %v", err)
							}
						})
					}
					if ev.Kind == EvSession && ev.Session.Status == sessions.Ended {
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	want, _, _ := e.Transcript(rec.ID)
	for i, tr := range results {
		if len(tr.msgs) != len(want) {
			t.Fatalf("subscriber %d: %d messages, want %d", i, len(tr.msgs), len(want))
		}
		for j := range want {
			got, w := tr.msgs[j], want[j]
			if got.ID != w.ID || len(got.Parts) != len(w.Parts) {
				t.Fatalf("subscriber %d message %d: %+v, want %+v", i, j, got, w)
			}
			for k := range w.Parts {
				if got.Parts[k].Text != w.Parts[k].Text {
					t.Fatalf("subscriber %d message %d part %d: %q, want %q", i, j, k, got.Parts[k].Text, w.Parts[k].Text)
				}
			}
		}
	}
}

// TestSlowSubscriberIsToldToResync fills a subscriber that never reads: the
// engine goes on, and the subscriber gets one resync instead of a backlog.
func TestSlowSubscriberIsToldToResync(t *testing.T) {
	e, err := Open(t.TempDir(), Options{Passive: true, SubscriberBuffer: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	_, sub := e.Subscribe()
	for i := 0; i < 100; i++ {
		if _, err := e.Create(CreateOptions{Agent: "demo"}); err != nil {
			t.Fatal(err)
		}
	}
	evs := sub.Drain()
	if len(evs) != 1 || evs[0].Kind != EvResync {
		t.Fatalf("slow subscriber got %d events, first %v", len(evs), evs[0].Kind)
	}
	if got := len(e.Sessions()); got != 100 {
		t.Fatalf("%d sessions", got)
	}
}
