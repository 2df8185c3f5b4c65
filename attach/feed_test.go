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

// TestFeedKeepsNoticesAcrossASnapshot: a notice pushed before a snapshot
// (the host was lost) is not dropped with the events the snapshot holds:
// it follows the resync.
func TestFeedKeepsNoticesAcrossASnapshot(t *testing.T) {
	f := newFeed(func() {})
	f.push(core.Event{Kind: core.EvSession, Seq: 3})
	f.notice(NoticeReconnecting)
	f.snapshot()
	if evs := f.Drain(); len(evs) != 1 || evs[0].Kind != core.EvResync {
		t.Fatalf("first drain %+v, want a resync", evs)
	}
	if evs := f.Drain(); len(evs) != 1 || evs[0].Kind != core.EvNotice || evs[0].Text != NoticeReconnecting {
		t.Fatalf("second drain %+v, want the notice alone (the event is in the snapshot)", evs)
	}
}
