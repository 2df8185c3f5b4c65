package poll

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestUntil returns as soon as the condition holds, having asked again
// until it did.
func TestUntil(t *testing.T) {
	var n atomic.Int32
	start := time.Now()
	Until(t, "the third look", func() bool { return n.Add(1) >= 3 })
	if got := n.Load(); got != 3 {
		t.Fatalf("asked %d times, want 3", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
}
