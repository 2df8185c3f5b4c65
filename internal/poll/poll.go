// Package poll waits, in tests, for a condition that persistent state or
// another goroutine makes true: the one wait-until helper of the project's
// tests. A test that waits for something not to happen does not poll; it
// uses testing/synctest.
package poll

import (
	"testing"
	"time"
)

// Deadline bounds a wait: generous, because a loaded CI machine is slow,
// and a wait that times out has found a bug whatever its length.
const Deadline = 30 * time.Second

// Until polls cond until it holds, failing t with what was awaited after
// Deadline. It polls often at first and backs off to every 20ms.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Deadline)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", Deadline, what)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}
