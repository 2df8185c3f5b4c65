package files

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
)

// Lease errors.
var (
	// ErrNoOwner refuses a lease asked for without an owner.
	ErrNoOwner = errors.New("lease needs an owner")
	// ErrLeaseDeadlock refuses an upgrade from read to write while another
	// owner holding a read lease already waits to upgrade: neither could
	// ever proceed.
	ErrLeaseDeadlock = errors.New("lease upgrade would deadlock")
)

// Leases is the workspace's readers-writer lease (DESIGN.md §1): reading
// operations of any sessions overlap, a writing operation (a file write, a
// writing tool call, a command a session runs) excludes every other
// session's reads and writes while it lasts. Leases belong to an owner (a
// session id) and are re-entrant within it: a write holder may take more
// reads and writes, a sole reader may upgrade. Waiters are served in order,
// and a waiting writer holds back new readers so it cannot starve. A session
// that parks calls ReleaseAll, so no human wait ever blocks another session.
// The zero value is ready to use.
type Leases struct {
	mu      sync.Mutex
	writer  string
	writes  int
	readers map[string]int
	epoch   map[string]uint64
	queue   []*leaseWaiter
}

type leaseWaiter struct {
	owner   string
	write   bool
	ready   chan struct{}
	granted bool
	epoch   uint64
}

// LeaseState is a snapshot of who holds and who waits, for the studio.
type LeaseState struct {
	Writer  string   // "" when nobody writes
	Readers []string // sorted
	Waiting []string // in queue order
}

// Read takes a read lease for owner, waiting while another owner writes (or
// waits to write). release ends it; it may be called more than once.
func (l *Leases) Read(ctx context.Context, owner string) (release func(), err error) {
	return l.acquire(ctx, owner, false)
}

// Write takes the write lease for owner, waiting until no other owner reads
// or writes. release ends it; it may be called more than once.
func (l *Leases) Write(ctx context.Context, owner string) (release func(), err error) {
	return l.acquire(ctx, owner, true)
}

func (l *Leases) acquire(ctx context.Context, owner string, write bool) (func(), error) {
	kind := "read"
	if write {
		kind = "write"
	}
	if owner == "" {
		return nil, fmt.Errorf("%s lease: %w", kind, ErrNoOwner)
	}
	l.mu.Lock()
	if l.readers == nil {
		l.readers = map[string]int{}
		l.epoch = map[string]uint64{}
	}
	if (len(l.queue) == 0 || l.holdsLocked(owner)) && l.canLocked(owner, write) {
		rel := l.grantLocked(owner, write)
		l.mu.Unlock()
		return rel, nil
	}
	if write && l.readers[owner] > 0 {
		for _, w := range l.queue {
			if w.write && l.readers[w.owner] > 0 && w.owner != owner {
				l.mu.Unlock()
				return nil, fmt.Errorf("write lease for %s: %w with %s", owner, ErrLeaseDeadlock, w.owner)
			}
		}
	}
	w := &leaseWaiter{owner: owner, write: write, ready: make(chan struct{})}
	l.queue = append(l.queue, w)
	l.mu.Unlock()

	select {
	case <-w.ready:
		return l.releaser(owner, write, w.epoch), nil
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		if w.granted {
			l.releaseLocked(owner, write, w.epoch)
		} else {
			l.removeLocked(w)
		}
		l.wakeLocked()
		return nil, fmt.Errorf("%s lease for %s: %w", kind, owner, ctx.Err())
	}
}

// ReleaseAll drops every lease owner holds, at any depth: the session is
// parking. Release functions handed out before become no-ops.
func (l *Leases) ReleaseAll(owner string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.epoch == nil {
		return
	}
	if l.writer == owner {
		l.writer, l.writes = "", 0
	}
	delete(l.readers, owner)
	l.epoch[owner]++
	l.wakeLocked()
}

// State returns who holds and who waits.
func (l *Leases) State() LeaseState {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := LeaseState{Writer: l.writer}
	for o := range l.readers {
		s.Readers = append(s.Readers, o)
	}
	sort.Strings(s.Readers)
	for _, w := range l.queue {
		s.Waiting = append(s.Waiting, w.owner)
	}
	return s
}

func (l *Leases) holdsLocked(owner string) bool {
	return l.writer == owner || l.readers[owner] > 0
}

func (l *Leases) canLocked(owner string, write bool) bool {
	if l.writer != "" && l.writer != owner {
		return false
	}
	if !write {
		return true
	}
	for o := range l.readers {
		if o != owner {
			return false
		}
	}
	return true
}

func (l *Leases) grantLocked(owner string, write bool) func() {
	if write {
		l.writer = owner
		l.writes++
	} else {
		l.readers[owner]++
	}
	return l.releaser(owner, write, l.epoch[owner])
}

func (l *Leases) releaser(owner string, write bool, epoch uint64) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.releaseLocked(owner, write, epoch)
			l.wakeLocked()
		})
	}
}

func (l *Leases) releaseLocked(owner string, write bool, epoch uint64) {
	if l.epoch[owner] != epoch {
		return // dropped by ReleaseAll meanwhile
	}
	if write {
		if l.writer == owner && l.writes > 0 {
			l.writes--
			if l.writes == 0 {
				l.writer = ""
			}
		}
		return
	}
	if n := l.readers[owner]; n > 1 {
		l.readers[owner] = n - 1
	} else {
		delete(l.readers, owner)
	}
}

// wakeLocked grants waiters in order. A waiter that cannot be served holds
// back those behind it, except owners that already hold a lease (they must
// not wait behind someone waiting for them).
func (l *Leases) wakeLocked() {
	blocked := false
	for i := 0; i < len(l.queue); {
		w := l.queue[i]
		reentrant := l.holdsLocked(w.owner)
		if (!blocked || reentrant) && l.canLocked(w.owner, w.write) {
			l.grantLocked(w.owner, w.write)
			w.granted, w.epoch = true, l.epoch[w.owner]
			l.queue = append(l.queue[:i], l.queue[i+1:]...)
			close(w.ready)
			continue
		}
		if !reentrant {
			blocked = true
		}
		i++
	}
}

func (l *Leases) removeLocked(w *leaseWaiter) {
	for i, q := range l.queue {
		if q == w {
			l.queue = append(l.queue[:i], l.queue[i+1:]...)
			return
		}
	}
}
