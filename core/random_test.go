package core

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// TestRandomControls fires random controls at several sessions of the demo
// agent while they run. Every status change a subscriber sees must be in the
// lifecycle table, and once everything is cancelled no tool call is left
// without a result.
func TestRandomControls(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, seed))
		demo := &harness.Demo{Pace: 100 * time.Microsecond, Wait: 20 * time.Millisecond}
		e, err := Open(t.TempDir(), Options{Agents: DemoResolver{Demo: demo}, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		_, sub := e.Subscribe()
		last := map[string]sessions.Status{}
		check := func() {
			for _, ev := range sub.Drain() {
				switch ev.Kind {
				case EvSession:
					prev, seen := last[ev.SessionID]
					st := ev.Session.Status
					if seen && prev != st && !canMove(prev, st) {
						t.Fatalf("seed %d: illegal transition %s → %s", seed, prev, st)
					}
					last[ev.SessionID] = st
				case EvInteraction:
					if !ev.Interaction.Resolved && rng.IntN(2) == 0 {
						sid, iid := ev.SessionID, ev.Interaction.ID
						a := Answer{
							Decision: []sessions.Decision{sessions.AllowOnce, sessions.Deny, sessions.AllowSession}[rng.IntN(3)],
							By:       "test"}
						// A random answer may come too late (the interaction
						// already resolved or the session gone): a refusal is fine.
						go func() { _ = e.As("").Answer(sid, iid, a) }()
					}
				}
			}
		}
		var ids []string
		for i := 0; i < 4; i++ {
			mode := sessions.OneShot
			if i%2 == 1 {
				mode = sessions.Continuous
			}
			rec, err := e.Create(CreateOptions{Agent: "demo", AutoStart: i != 3, Mode: mode, Instructions: "task"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, rec.ID)
		}
		for step := 0; step < 120; step++ {
			id := ids[rng.IntN(len(ids))]
			// Controls fired at random are often refused (not allowed in
			// the session's state): what is checked is the transitions
			// seen, so their errors are dropped.
			switch rng.IntN(10) {
			case 0:
				_, _ = e.As("").Pause(id)
			case 1:
				_, _ = e.As("").Resume(id)
			case 2:
				_, _ = e.As("").Stop(id)
			case 3:
				_, _ = e.As("").Steer(id, "steer")
			case 4:
				_, _ = e.As("").Send(id, "prompt")
			case 5:
				_, _ = e.As("").Nudge(id)
			case 6:
				_ = e.As("").Start(id)
			case 7:
				_, _ = e.As("").CloseSession(id)
			case 8:
				if rng.IntN(8) == 0 {
					_, _ = e.As("").Cancel(id)
				}
			}
			time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
			check()
		}
		for _, id := range ids {
			// A session the random controls already ended refuses the
			// cancel; that is fine, the loop below waits for all to end.
			_, _ = e.As("").Cancel(id)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			check()
			ended := 0
			for _, s := range e.Sessions() {
				if s.Status == sessions.Ended {
					ended++
				}
			}
			if ended == len(ids) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("seed %d: sessions did not all end: %+v", seed, e.Sessions())
			}
			time.Sleep(5 * time.Millisecond)
		}
		for _, id := range ids {
			msgs, _, _ := e.Transcript(id)
			for _, tc := range tools(msgs) {
				if !tc.State.Finished() {
					t.Fatalf("seed %d: dangling tool call %+v", seed, tc)
				}
			}
		}
		sub.Close()
		if err := e.Close(); err != nil {
			t.Fatalf("seed %d: close: %v", seed, err)
		}
	}
}
