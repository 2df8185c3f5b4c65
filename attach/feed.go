package attach

import (
	"sync"

	"github.com/atelier-studio/atelier/core"
)

// feed is a Feed filled from a host's stream: events queue until drained,
// and a snapshot replaces whatever waits with one resync (the studio then
// takes Snapshot, which returns that snapshot). It never blocks the
// stream: a studio that does not drain holds at most feedLimit events,
// past which the queue turns into a resync on the latest snapshot the
// remote takes again.
type feed struct {
	mu     sync.Mutex
	queue  []core.Event
	resync bool
	ready  chan struct{}
	closed bool
	stop   func()
	said   string // the last notice pushed, not repeated while nothing else happens
}

// feedLimit is how many events a feed holds before it asks for a resync,
// as core.DefaultSubscriberBuffer does for an in-process subscriber.
const feedLimit = core.DefaultSubscriberBuffer

func newFeed(stop func()) *feed { return &feed{ready: make(chan struct{}, 1), stop: stop} }

func (f *feed) Ready() <-chan struct{} { return f.ready }

func (f *feed) Drain() []core.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.resync {
		f.resync = false
		if len(f.queue) > 0 {
			// The events pushed after the snapshot follow the resync: their
			// push found Ready already signalled (by the snapshot), so it
			// is signalled again for them, or they would wait for the
			// next event.
			f.signal()
		}
		return []core.Event{{Kind: core.EvResync}}
	}
	q := f.queue
	f.queue = nil
	return q
}

func (f *feed) Close() {
	f.stop()
	f.end()
}

// push queues events; it reports false when the queue overflowed (the
// caller must bring a new snapshot, which resync then announces).
func (f *feed) push(evs ...core.Event) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return true
	}
	if len(f.queue)+len(evs) > feedLimit {
		f.queue = nil
		return false
	}
	f.queue = append(f.queue, evs...)
	f.signal()
	return true
}

// notice pushes a remark for the operator, unless it repeats the last one
// (a host that stays unreachable is said once, not every retry).
func (f *feed) notice(text string) {
	f.mu.Lock()
	same := text == f.said
	f.said = text
	f.mu.Unlock()
	if !same {
		f.push(core.Event{Kind: core.EvNotice, Text: text})
	}
}

// snapshot drops the events that wait (the snapshot holds what they
// changed) and announces a resync: the events pushed after it apply to the
// new snapshot. Notices stay queued, after the resync: no snapshot holds
// them ("reconnecting" said as the host went must still show).
func (f *feed) snapshot() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	kept := f.queue[:0]
	for _, ev := range f.queue {
		if ev.Kind == core.EvNotice {
			kept = append(kept, ev)
		}
	}
	f.queue = kept
	f.resync = true
	f.said = "" // connected: the next trouble is news
	f.signal()
}

func (f *feed) signal() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

func (f *feed) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.ready)
	}
}
