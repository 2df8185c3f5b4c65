package tui

import (
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	sess "github.com/atelier-studio/atelier/sessions"
)

// TestLiveViewFoldsTheEnginesView holds the live view to what the root
// relies on: a snapshot replaces what was held, an event the snapshot
// already holds is not folded in twice, a removed session takes its open
// interactions with it, a session's wait is its most pressing one and its
// interactions come oldest first, and each item is news once.
func TestLiveViewFoldsTheEnginesView(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	deadline := t0.Add(time.Hour)
	v := newLiveView()
	v.recs["gone"] = sess.Session{ID: "gone"}
	v.reset(core.Snapshot{
		Seq:      10,
		Sessions: []sess.Session{{ID: "a", Title: "alpha"}, {ID: "b", Title: "beta"}},
		Interactions: []core.OpenInteraction{
			{SessionID: "a", Interaction: sess.Interaction{ID: "i2", Kind: sess.Park, Time: t0.Add(time.Minute), Deadline: &deadline}},
			{SessionID: "a", Interaction: sess.Interaction{ID: "i1", Kind: sess.Approval, Time: t0}},
			{SessionID: "b", Interaction: sess.Interaction{ID: "i3", Kind: sess.Question, Time: t0}},
		},
	})
	if _, ok := v.recs["gone"]; ok || len(v.recs) != 2 {
		t.Fatalf("a snapshot replaces the records: %v", v.recs)
	}
	for _, c := range []struct {
		seq  uint64
		want bool
	}{{9, false}, {10, false}, {11, true}, {11, false}, {0, true}, {12, true}} {
		if got := v.admit(core.Event{Seq: c.seq}); got != c.want {
			t.Errorf("admit(seq %d) after %d = %v, want %v", c.seq, v.seq, got, c.want)
		}
	}
	if v.seq != 12 {
		t.Errorf("the newest event folded in is %d, want 12", v.seq)
	}
	if w := v.waitOf("a"); w.Kind != sess.Approval {
		t.Errorf("a waits on %q, want the approval before the park", w.Kind)
	}
	if got := v.waitsOf("a"); len(got) != 2 || got[0].ID != "i1" || got[1].ID != "i2" {
		t.Errorf("a's interactions oldest first: %+v", got)
	}
	if !v.counting() {
		t.Error("a parked session with a deadline counts down")
	}
	if prev, known := v.upsert(sess.Session{ID: "a", Title: "alpha 2"}); !known || prev.Title != "alpha" {
		t.Errorf("upsert returned %+v, %v", prev, known)
	}
	if rec := v.remove("a"); rec.Title != "alpha 2" {
		t.Errorf("remove returned %+v", rec)
	}
	if len(v.waitsOf("a")) != 0 || len(v.asks) != 1 || v.counting() {
		t.Errorf("a removed session keeps no interaction: %v", v.asks)
	}
	if !v.tell("i3") || v.tell("i3") {
		t.Error("an item is news once")
	}
	v.told()
	if v.tell("i3") {
		t.Error("told notes every open interaction")
	}
}
