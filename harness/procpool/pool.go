package procpool

import (
	"context"
	"errors"
	"sync"
)

// ErrClosed is returned by Get when the key was removed, or the pool
// closed, while its value was starting, and for every Get after Close.
var ErrClosed = errors.New("closed")

// Pool keeps one value (a running process) per key. Safe for concurrent
// use; the zero value is not usable, call New.
type Pool[P comparable] struct {
	alive   func(P) bool
	discard func(P)

	mu     sync.Mutex
	slots  map[string]*slot[P]
	closed bool
}

// slot is a key's entry: in flight until ready is closed, then holding
// val (or err, when it is no longer in the map).
type slot[P comparable] struct {
	ready chan struct{}
	val   P
	err   error
	// retry says the start failed because its caller's context ended, so
	// the callers waiting for it start again with their own.
	retry bool
}

// New returns an empty pool. alive reports whether a kept value can still
// be used (nil: always); Get replaces a value it reports dead. discard ends
// a value the pool drops by itself: one found dead, or one whose start
// finished after its key was removed or the pool closed. It is called
// without the pool's lock held.
func New[P comparable](alive func(P) bool, discard func(P)) *Pool[P] {
	return &Pool[P]{alive: alive, discard: discard, slots: map[string]*slot[P]{}}
}

func (s *slot[P]) done() bool {
	select {
	case <-s.ready:
		return true
	default:
		return false
	}
}

// Get returns key's value, starting one with start when the key has none
// or its value is dead. Callers for a key whose value is starting wait for
// that start (or for their ctx to end) and share its value or its error;
// start gets the ctx of the caller that runs it.
func (p *Pool[P]) Get(ctx context.Context, key string, start func(context.Context) (P, error)) (P, error) {
	var zero P
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return zero, ErrClosed
		}
		s := p.slots[key]
		if s == nil {
			s = &slot[P]{ready: make(chan struct{})}
			p.slots[key] = s
			p.mu.Unlock()
			return p.start(ctx, key, s, start)
		}
		if !s.done() {
			p.mu.Unlock()
			select {
			case <-s.ready:
			case <-ctx.Done():
				return zero, ctx.Err()
			}
			if s.err == nil {
				return s.val, nil
			}
			if s.retry && ctx.Err() == nil {
				continue
			}
			return zero, s.err
		}
		if p.alive == nil || p.alive(s.val) {
			p.mu.Unlock()
			return s.val, nil
		}
		delete(p.slots, key)
		p.mu.Unlock()
		p.discard(s.val)
	}
}

// start runs the start of the in-flight slot s of key and settles it.
func (p *Pool[P]) start(ctx context.Context, key string, s *slot[P], start func(context.Context) (P, error)) (P, error) {
	var zero P
	v, err := start(ctx)
	p.mu.Lock()
	kept := p.slots[key] == s
	if err != nil {
		if kept {
			delete(p.slots, key)
		}
		s.err, s.retry = err, ctx.Err() != nil
		close(s.ready)
		p.mu.Unlock()
		return zero, err
	}
	if kept {
		s.val = v
		close(s.ready)
		p.mu.Unlock()
		return v, nil
	}
	// Removed or closed meanwhile: nobody may use it. The waiters learn so
	// once it is ended, so that Close returns with nothing running.
	p.mu.Unlock()
	p.discard(v)
	s.err = ErrClosed
	close(s.ready)
	return zero, ErrClosed
}

// Peek returns key's value if one has started, without starting or
// waiting for one.
func (p *Pool[P]) Peek(key string) (P, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.slots[key]; s != nil && s.done() {
		return s.val, true
	}
	var zero P
	return zero, false
}

// Remove forgets key's value if it is v (a value its user found broken),
// and reports whether it did. The caller ends v.
func (p *Pool[P]) Remove(key string, v P) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.slots[key]; s != nil && s.done() && s.val == v {
		delete(p.slots, key)
		return true
	}
	return false
}

// Take removes key's value and returns it for the caller to end. A value
// still starting is not returned: its start ends it when it finishes, and
// its callers get ErrClosed.
func (p *Pool[P]) Take(key string) (P, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.slots[key]
	delete(p.slots, key)
	if s != nil && s.done() {
		return s.val, true
	}
	var zero P
	return zero, false
}

// Close refuses every later Get, ends every value with end (concurrently:
// closing many sessions waits for the slowest, not the sum) and waits for
// the starts in flight, which end their values themselves.
func (p *Pool[P]) Close(end func(P)) {
	var vals []P
	var starting []chan struct{}
	p.mu.Lock()
	p.closed = true
	for _, s := range p.slots {
		if s.done() {
			vals = append(vals, s.val)
		} else {
			starting = append(starting, s.ready)
		}
	}
	p.slots = map[string]*slot[P]{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, v := range vals {
		wg.Go(func() { end(v) })
	}
	wg.Wait()
	for _, ready := range starting {
		<-ready
	}
}
