package files

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/internal/poll"
)

// blocked asserts that acquiring does not succeed while the lease is held:
// the attempt runs out of its (short) time, which cannot happen the other way
// round on a slow machine.
func blocked(t *testing.T, acquire func(context.Context) (func(), error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if rel, err := acquire(ctx); err == nil {
		rel()
		t.Fatal("lease granted while it should wait")
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("unexpected error: %v", err)
	}
}

// okFn returns a checker for acquisitions that must succeed at once.
func okFn(t *testing.T) func(func(), error) func() {
	return func(rel func(), err error) func() {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return rel
	}
}

func TestLeasesReadersOverlapWriterExcludes(t *testing.T) {
	var l Leases
	ctx := context.Background()
	ok := okFn(t)
	ra := ok(l.Read(ctx, "a"))
	rb := ok(l.Read(ctx, "b"))
	blocked(t, func(c context.Context) (func(), error) { return l.Write(c, "c") })
	ra()
	rb()
	wc := ok(l.Write(ctx, "c"))
	blocked(t, func(c context.Context) (func(), error) { return l.Read(c, "a") })
	blocked(t, func(c context.Context) (func(), error) { return l.Write(c, "a") })
	wc()
	ok(l.Read(ctx, "a"))()
}

func TestLeasesReentrant(t *testing.T) {
	var l Leases
	ctx := context.Background()
	ok := okFn(t)
	w1 := ok(l.Write(ctx, "a"))
	r1 := ok(l.Read(ctx, "a"))
	w2 := ok(l.Write(ctx, "a"))
	w2()
	w2() // a second call changes nothing
	blocked(t, func(c context.Context) (func(), error) { return l.Read(c, "b") })
	w1()
	// a still reads: b may read along, not write.
	ok(l.Read(ctx, "b"))()
	blocked(t, func(c context.Context) (func(), error) { return l.Write(c, "b") })
	r1()
	ok(l.Write(ctx, "b"))()

	// A sole reader upgrades at once.
	r := ok(l.Read(ctx, "a"))
	ok(l.Write(ctx, "a"))()
	r()
}

func TestLeasesWriterNotStarved(t *testing.T) {
	var l Leases
	ctx := context.Background()
	ok := okFn(t)
	ra := ok(l.Read(ctx, "a"))
	got := make(chan string, 2)
	go func() {
		rel, err := l.Write(ctx, "w")
		if err == nil {
			got <- "w"
			time.Sleep(10 * time.Millisecond)
			rel()
		}
	}()
	poll.Until(t, "the awaited state", func() bool { return len(l.State().Waiting) == 1 })
	// A new reader queues behind the waiting writer...
	go func() {
		rel, err := l.Read(ctx, "c")
		if err == nil {
			got <- "c"
			rel()
		}
	}()
	poll.Until(t, "the awaited state", func() bool { return len(l.State().Waiting) == 2 })
	// ...but the holder itself may still read more (re-entrant).
	ok(l.Read(ctx, "a"))()
	ra()
	if first, second := <-got, <-got; first != "w" || second != "c" {
		t.Fatalf("order = %s, %s; want w, c", first, second)
	}
}

func TestLeasesUpgradeDeadlock(t *testing.T) {
	var l Leases
	ctx := context.Background()
	ok := okFn(t)
	ra := ok(l.Read(ctx, "a"))
	rb := ok(l.Read(ctx, "b"))
	done := make(chan error, 1)
	go func() {
		rel, err := l.Write(ctx, "a")
		if err == nil {
			rel()
		}
		done <- err
	}()
	poll.Until(t, "the awaited state", func() bool { return len(l.State().Waiting) == 1 })
	if _, err := l.Write(ctx, "b"); !errors.Is(err, ErrLeaseDeadlock) {
		t.Fatalf("second upgrade: %v, want ErrLeaseDeadlock", err)
	}
	rb()
	if err := <-done; err != nil {
		t.Fatalf("first upgrade: %v", err)
	}
	ra()
}

func TestLeasesReleaseAll(t *testing.T) {
	var l Leases
	ctx := context.Background()
	ok := okFn(t)
	w1 := ok(l.Write(ctx, "a"))
	w2 := ok(l.Write(ctx, "a"))
	r1 := ok(l.Read(ctx, "a"))
	done := make(chan func(), 1)
	go func() {
		rel, err := l.Write(ctx, "b")
		if err == nil {
			done <- rel
		}
	}()
	poll.Until(t, "the awaited state", func() bool { return len(l.State().Waiting) == 1 })
	l.ReleaseAll("a") // a parks
	wb := <-done
	// a's old release functions must not release b's lease.
	w1()
	w2()
	r1()
	if s := l.State(); s.Writer != "b" {
		t.Fatalf("writer = %q after stale releases, want b", s.Writer)
	}
	wb()
	if s := l.State(); s.Writer != "" || len(s.Readers) != 0 {
		t.Fatalf("state after all releases = %+v", s)
	}
}

func TestLeasesCancelledWaitLeavesQueue(t *testing.T) {
	var l Leases
	ctx := context.Background()
	ok := okFn(t)
	ra := ok(l.Read(ctx, "a"))
	blocked(t, func(c context.Context) (func(), error) { return l.Write(c, "w") })
	if s := l.State(); len(s.Waiting) != 0 {
		t.Fatalf("cancelled waiter still queued: %+v", s)
	}
	// The cancelled writer no longer holds back readers.
	ok(l.Read(ctx, "b"))()
	ra()
	if _, err := l.Read(ctx, ""); !errors.Is(err, ErrNoOwner) {
		t.Fatalf("no owner: %v", err)
	}
}

// TestLeasesStress checks the invariant under contention: while someone
// writes, nobody else holds anything.
func TestLeasesStress(t *testing.T) {
	var l Leases
	var writers, readers atomic.Int32
	var wg sync.WaitGroup
	owners := []string{"a", "b", "c", "d", "e"}
	for _, o := range owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(len(o)), uint64(o[0])))
			for i := 0; i < 200; i++ {
				write := r.IntN(3) == 0
				var rel func()
				var err error
				if write {
					rel, err = l.Write(context.Background(), o)
				} else {
					rel, err = l.Read(context.Background(), o)
				}
				if err != nil {
					t.Error(err)
					return
				}
				if write {
					if writers.Add(1) != 1 || readers.Load() != 0 {
						t.Error("a writer overlaps another holder")
					}
					writers.Add(-1)
				} else {
					readers.Add(1)
					if writers.Load() != 0 {
						t.Error("a reader overlaps a writer")
					}
					readers.Add(-1)
				}
				rel()
			}
		}()
	}
	wg.Wait()
}
