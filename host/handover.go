package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// A restart (`serve --restart`) stops the workspace's host and starts
// another. Between the two no host answers, and every client that can
// start one (an open studio, a short command) would race to start a plain
// host of its own: the successor, with its listener, would then find the
// lock taken. So the restarting process marks the hand-over first, in
// <key>.handover next to the lock, and a client that would start a host
// waits while the mark stands, then attaches to the successor.

// HandOverMax bounds a hand-over: stopping the old host (it finishes its
// step first) and starting the new one. A mark older than this, or whose
// writer is gone, is ignored: a crashed restart never keeps a workspace
// without a host.
const HandOverMax = DefaultStopTimeout + DefaultDetachTimeout + 5*time.Second

// handOver is what the mark holds.
type handOver struct {
	PID   int       `json:"pid"`
	Until time.Time `json:"until"`
}

// HandOver is a hand-over this process marked; End removes the mark.
type HandOver struct {
	path string
}

// BeginHandOver marks that this process hands the workspace's host over
// to a new one, so that clients that find no host wait for the successor
// (Detach waits) instead of starting their own. The caller ends it once
// the successor answers, or the restart failed.
func BeginHandOver(workspace string) (*HandOver, error) {
	p, err := Locate(workspace)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(handOver{PID: os.Getpid(), Until: time.Now().Add(HandOverMax).UTC()})
	if err != nil {
		return nil, err
	}
	if err := sessions.WriteFileAtomic(p.HandOver, append(b, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("mark the hand-over: %w", err)
	}
	return &HandOver{path: p.HandOver}, nil
}

// End removes the mark if it is still this process's.
func (h *HandOver) End() error {
	m, err := readHandOver(h.path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && m.PID != os.Getpid()) {
		return nil
	}
	if err := os.Remove(h.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("end the hand-over: %w", err)
	}
	return nil
}

// awaitHandOver waits while another process hands the workspace's host
// over (a live mark, see BeginHandOver), until the mark goes, its writer
// dies, it expires or ctx ends. It reports whether it waited: the caller
// then looks again for a host before it starts one. Waiting on another
// process, it looks every 50 ms.
func awaitHandOver(ctx context.Context, p Paths) (bool, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	waited := false
	for {
		m, err := readHandOver(p.HandOver)
		if errors.Is(err, os.ErrNotExist) || (err == nil && !m.live()) {
			return waited, nil
		}
		if err != nil {
			// A mark that cannot be read is not honoured: a host must
			// still start. The caller says why it did not wait.
			return waited, err
		}
		waited = true
		select {
		case <-ctx.Done():
			return waited, context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// live reports whether a mark still holds: not this process's own (a
// restart starts its successor through Detach too), not expired, and its
// writer still runs.
func (m handOver) live() bool {
	if m.PID <= 0 || m.PID == os.Getpid() || time.Now().After(m.Until) {
		return false
	}
	err := syscall.Kill(m.PID, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// readHandOver reads a mark without following a symbolic link.
func readHandOver(path string) (handOver, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return handOver{}, err
	}
	defer func() { _ = f.Close() }() // read-only
	b, err := io.ReadAll(io.LimitReader(f, maxRecord))
	if err != nil {
		return handOver{}, fmt.Errorf("read the hand-over mark %s: %w", path, err)
	}
	var m handOver
	if err := json.Unmarshal(b, &m); err != nil {
		return handOver{}, fmt.Errorf("read the hand-over mark %s: %w", path, err)
	}
	return m, nil
}
