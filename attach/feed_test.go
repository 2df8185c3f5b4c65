package attach

import (
	"testing"

	"github.com/atelier-studio/atelier/core"
)

// TestFeedEventsAfterASnapshotAreNotStranded: an event pushed after a
// snapshot, before the studio drained the resync, is ready right after
// that drain (not only once another event comes).
func TestFeedEventsAfterASnapshotAreNotStranded(t *testing.T) {
	f := newFeed(func() {})
	f.snapshot()
	f.push(core.Event{Kind: core.EvSession, Seq: 7})
	<-f.Ready()
	if evs := f.Drain(); len(evs) != 1 || evs[0].Kind != core.EvResync {
		t.Fatalf("first drain %+v, want a resync", evs)
	}
	select {
	case <-f.Ready():
	default:
		t.Fatal("the event pushed after the snapshot waits with nothing signalled")
	}
	if evs := f.Drain(); len(evs) != 1 || evs[0].Seq != 7 {
		t.Fatalf("second drain %+v", evs)
	}
}
