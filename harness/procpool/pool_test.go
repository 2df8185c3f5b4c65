package procpool

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// fake is a started "process".
type fake struct {
	n     int
	dead  atomic.Bool
	ended atomic.Int32
}

// counter starts fakes and counts the starts, each held at gate (when
// set) so that callers pile up behind it.
type counter struct {
	starts atomic.Int32
	gate   chan struct{}
	fail   error
}

func (c *counter) start(ctx context.Context) (*fake, error) {
	n := c.starts.Add(1)
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if c.fail != nil {
		return nil, c.fail
	}
	return &fake{n: int(n)}, nil
}

func newPool() *Pool[*fake] {
	return New(func(f *fake) bool { return !f.dead.Load() }, func(f *fake) { f.ended.Add(1) })
}

// TestConcurrentGetStartsOnce: many goroutines asking for one key at once
// start exactly one process and all get it.
func TestConcurrentGetStartsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPool()
		c := &counter{gate: make(chan struct{})}
		const n = 64
		got := make([]*fake, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { got[i], errs[i] = p.Get(context.Background(), "s", c.start) })
		}
		synctest.Wait() // every caller waits behind the one start
		close(c.gate)
		wg.Wait()
		if c.starts.Load() != 1 {
			t.Fatalf("%d starts for one key", c.starts.Load())
		}
		for i := range n {
			if errs[i] != nil || got[i] != got[0] {
				t.Fatalf("caller %d got %v, %v; caller 0 got %v", i, got[i], errs[i], got[0])
			}
		}
		// Other keys get their own.
		other, err := p.Get(context.Background(), "t", c.start)
		if err != nil || other == got[0] || c.starts.Load() != 2 {
			t.Fatalf("other key: %v %v, %d starts", other, err, c.starts.Load())
		}
	})
}

// TestFailedStartNotKept: the callers waiting for a failed start share its
// error; the next Get starts again.
func TestFailedStartNotKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPool()
		boom := errors.New("boom")
		c := &counter{gate: make(chan struct{}), fail: boom}
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() { _, errs[i] = p.Get(context.Background(), "s", c.start) })
		}
		synctest.Wait()
		close(c.gate)
		wg.Wait()
		for i, err := range errs {
			if !errors.Is(err, boom) {
				t.Fatalf("caller %d: %v", i, err)
			}
		}
		if c.starts.Load() != 1 {
			t.Fatalf("%d starts", c.starts.Load())
		}
		if _, ok := p.Peek("s"); ok {
			t.Fatal("a failed start was kept")
		}
		c.fail = nil
		f, err := p.Get(context.Background(), "s", c.start)
		if err != nil || f == nil || c.starts.Load() != 2 {
			t.Fatalf("after a failure: %v %v, %d starts", f, err, c.starts.Load())
		}
	})
}

// TestCancelledStarterDoesNotFailWaiters: when the caller running a start
// gives up (its turn was cancelled), a waiter starts again with its own
// context rather than inherit the cancellation.
func TestCancelledStarterDoesNotFailWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPool()
		c := &counter{gate: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		first := make(chan error, 1)
		go func() {
			_, err := p.Get(ctx, "s", c.start)
			first <- err
		}()
		synctest.Wait() // the first caller's start is under way
		second := make(chan error, 1)
		go func() {
			_, err := p.Get(context.Background(), "s", c.start)
			second <- err
		}()
		synctest.Wait() // the second waits behind the first's start
		if c.starts.Load() != 1 {
			t.Fatalf("%d starts before the cancel", c.starts.Load())
		}
		cancel()
		if err := <-first; !errors.Is(err, context.Canceled) {
			t.Fatalf("first: %v", err)
		}
		synctest.Wait()
		if c.starts.Load() != 2 {
			t.Fatalf("%d starts after the cancel: the waiter did not start again", c.starts.Load())
		}
		close(c.gate)
		if err := <-second; err != nil {
			t.Fatalf("second: %v", err)
		}
	})
}

// TestDeadReplaced: a value reported dead is discarded and replaced.
func TestDeadReplaced(t *testing.T) {
	p := newPool()
	c := &counter{}
	f1, _ := p.Get(context.Background(), "s", c.start)
	f1.dead.Store(true)
	f2, err := p.Get(context.Background(), "s", c.start)
	if err != nil || f2 == f1 || f1.ended.Load() != 1 || c.starts.Load() != 2 {
		t.Fatalf("got %v %v; the dead one ended %d times; %d starts", f2, err, f1.ended.Load(), c.starts.Load())
	}
}

// TestRemoveOnlyThatValue: Remove forgets a value only if it is still the
// key's, so a late Remove does not drop its replacement.
func TestRemoveOnlyThatValue(t *testing.T) {
	p := newPool()
	c := &counter{}
	f1, _ := p.Get(context.Background(), "s", c.start)
	if !p.Remove("s", f1) {
		t.Fatal("Remove of the current value refused")
	}
	f2, _ := p.Get(context.Background(), "s", c.start)
	if p.Remove("s", f1) {
		t.Fatal("a stale Remove dropped the replacement")
	}
	if got, ok := p.Peek("s"); !ok || got != f2 {
		t.Fatalf("peek %v %v", got, ok)
	}
}

// TestTakeWhileStarting: a key taken (its session closed) while its value
// starts: the start's value is ended, not kept, and its callers get
// ErrClosed.
func TestTakeWhileStarting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPool()
		c := &counter{gate: make(chan struct{})}
		var started *fake
		c2 := func(ctx context.Context) (*fake, error) {
			f, err := c.start(ctx)
			started = f
			return f, err
		}
		done := make(chan error, 1)
		go func() {
			_, err := p.Get(context.Background(), "s", c2)
			done <- err
		}()
		synctest.Wait() // the start is under way
		if _, ok := p.Take("s"); ok {
			t.Fatal("Take returned a value still starting")
		}
		close(c.gate)
		if err := <-done; !errors.Is(err, ErrClosed) {
			t.Fatalf("err %v", err)
		}
		if started.ended.Load() != 1 {
			t.Fatal("the value started after its key was taken is still running")
		}
		if _, ok := p.Peek("s"); ok {
			t.Fatal("kept after Take")
		}
	})
}

// TestClose ends every value, waits for starts in flight (whose values are
// ended too) and refuses later Gets.
func TestClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPool()
		c := &counter{}
		a, _ := p.Get(context.Background(), "a", c.start)
		b, _ := p.Get(context.Background(), "b", c.start)
		slow := &counter{gate: make(chan struct{})}
		var late *fake
		done := make(chan error, 1)
		go func() {
			_, err := p.Get(context.Background(), "c", func(ctx context.Context) (*fake, error) {
				f, err := slow.start(ctx)
				late = f
				return f, err
			})
			done <- err
		}()
		synctest.Wait() // the slow start is under way
		time.AfterFunc(20*time.Millisecond, func() { close(slow.gate) })
		var closed atomic.Int32
		p.Close(func(f *fake) { closed.Add(1); f.ended.Add(1) })
		if closed.Load() != 2 || a.ended.Load() != 1 || b.ended.Load() != 1 {
			t.Fatalf("closed %d", closed.Load())
		}
		if late == nil || late.ended.Load() != 1 {
			t.Fatal("Close returned before the start in flight was ended")
		}
		if err := <-done; !errors.Is(err, ErrClosed) {
			t.Fatalf("in-flight Get: %v", err)
		}
		if _, err := p.Get(context.Background(), "a", c.start); !errors.Is(err, ErrClosed) {
			t.Fatalf("Get after Close: %v", err)
		}
	})
}
