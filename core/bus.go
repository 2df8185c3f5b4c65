package core

import (
	"sync"

	"github.com/atelier-studio/atelier/internal/redact"
)

// DefaultSubscriberBuffer is how many undelivered events a subscriber may
// hold before it is told to resync. Consecutive deltas to one part are merged
// and count once, so a slow reader of a streaming session stays far below it.
const DefaultSubscriberBuffer = 4096

// Subscription receives the live view. Read it by waiting on Ready and then
// calling Drain; both are safe from one goroutine while the engine publishes.
type Subscription struct {
	mu     sync.Mutex
	queue  []Event
	limit  int
	resync bool
	ready  chan struct{}
	closed bool
	drop   func()
}

func newSubscription(limit int) *Subscription {
	if limit <= 0 {
		limit = DefaultSubscriberBuffer
	}
	return &Subscription{limit: limit, ready: make(chan struct{}, 1)}
}

// Ready is signalled when events are waiting. It is closed when the
// subscription ends.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Drain returns the waiting events, oldest first. After an overflow it
// returns a single EvResync event: the subscriber must take a new snapshot.
func (s *Subscription) Drain() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resync {
		s.resync = false
		s.queue = nil
		return []Event{{Kind: EvResync}}
	}
	q := s.queue
	s.queue = nil
	return q
}

// Close ends the subscription.
func (s *Subscription) Close() {
	if s.drop != nil {
		s.drop()
	}
}

// push queues events without ever blocking: deltas merge into a waiting
// delta of the same part, and a full queue turns into a resync. The events
// of one call are queued together: a Drain sees all of them or none.
func (s *Subscription) push(evs ...Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	for _, ev := range evs {
		switch {
		case s.resync:
		case ev.Kind == EvDelta && s.mergeDelta(ev):
		case len(s.queue) >= s.limit:
			s.resync = true
			s.queue = nil
		default:
			s.queue = append(s.queue, ev)
		}
	}
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

func (s *Subscription) mergeDelta(ev Event) bool {
	n := len(s.queue)
	if n == 0 {
		return false
	}
	last := &s.queue[n-1]
	if last.Kind != EvDelta || last.SessionID != ev.SessionID ||
		last.Delta.MessageID != ev.Delta.MessageID || last.Delta.Part != ev.Delta.Part {
		return false
	}
	d := *last.Delta
	d.Text += ev.Delta.Text
	last.Delta = &d
	last.Seq = ev.Seq
	return true
}

func (s *Subscription) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.ready)
	}
	s.mu.Unlock()
}

// bus fans events out to subscriptions. It is guarded by the engine's mutex.
type bus struct {
	seq  uint64
	subs map[*Subscription]struct{}
	// red redacts secret values from what the live view carries besides
	// messages (which the stream redacts): notices and interactions.
	red *redact.Redactor
	// holding counts open groups; held keeps their events until the last
	// one closes (see group).
	holding int
	held    []Event
}

// group publishes the events f publishes as one batch: a subscriber sees
// them all in one Drain or none of them. A change the engine makes in
// several events (an approval opens and its session parks) is never seen
// half made, so no view shows the approval in one pane and the session
// still running in another.
func (b *bus) group(f func()) {
	b.holding++
	defer func() {
		b.holding--
		if b.holding > 0 || len(b.held) == 0 {
			return
		}
		evs := b.held
		b.held = nil
		for s := range b.subs {
			s.push(evs...)
		}
	}()
	f()
}

func (b *bus) publish(ev Event) {
	if !b.red.Empty() {
		ev.Text = b.red.Redact(ev.Text)
		if ev.Interaction != nil {
			it := *ev.Interaction
			it.Text, it.Command, it.Diff, it.Message, it.Answer = b.red.Redact(it.Text), b.red.Redact(it.Command),
				b.red.Redact(it.Diff), b.red.Redact(it.Message), b.red.Redact(it.Answer)
			ev.Interaction = &it
		}
		if ev.Signal != nil {
			sig := *ev.Signal
			sig.Data = b.red.Redact(sig.Data)
			ev.Signal = &sig
		}
	}
	b.seq++
	ev.Seq = b.seq
	if b.holding > 0 {
		b.held = append(b.held, ev)
		return
	}
	for s := range b.subs {
		s.push(ev)
	}
}
