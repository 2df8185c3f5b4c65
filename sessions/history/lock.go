package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// lockName is the file under .state/git that processes flock to take the
// writer's seat for the workspace.
const lockName = "atelier.lock"

// staleAfter is how old a git lock file (index.lock, a ref's .lock) must be,
// found while we hold the writer's lock, before we treat it as left by a
// process that died mid-write and remove it.
const staleAfter = 5 * time.Second

// acquire takes the in-process mutex and then the cross-process flock,
// waiting until ctx is done, and brings the workspace's index up to the
// branch if fast turn commits left it behind. The returned func releases
// both.
func (h *History) acquire(ctx context.Context) (func(), error) {
	return h.lock(ctx, true)
}

// lock is acquire; without sync the index is left as it is, for the fast
// turn commit that builds its tree without it.
func (h *History) lock(ctx context.Context, sync bool) (func(), error) {
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for history lock: %w", ctx.Err())
	}
	f, err := os.OpenFile(filepath.Join(h.git.gitDir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		<-h.sem
		return nil, fmt.Errorf("open history lock: %w", err)
	}
	delay := time.Millisecond
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			closeLock(f)
			<-h.sem
			return nil, fmt.Errorf("lock history: %w", err)
		}
		select {
		case <-ctx.Done():
			closeLock(f)
			<-h.sem
			return nil, fmt.Errorf("wait for history lock: %w", ctx.Err())
		case <-time.After(delay):
		}
		if delay < 20*time.Millisecond {
			delay *= 2
		}
	}
	release := func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		closeLock(f)
		<-h.sem
	}
	if err := h.clearStaleLocks(ctx); err != nil {
		release()
		return nil, err
	}
	if h.parent != nil {
		// An instance's chain and index exist before any use of them,
		// even after DropInstance.
		if err := h.begin(ctx); err != nil {
			release()
			return nil, err
		}
	}
	if sync {
		if err := h.syncIndex(ctx); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

// closeLock closes the lock file, which is only ever flocked, never
// written: Close has nothing to flush, and closing drops the flock anyway.
func closeLock(f *os.File) { _ = f.Close() }

// clearStaleLocks removes git lock files that a killed writer left behind.
// Only the holder of our lock writes the history, so a lock file present now
// belongs to a dead writer, unless it is very young: a git child of a writer
// killed a moment ago may still be finishing, so wait for it to go or age.
func (h *History) clearStaleLocks(ctx context.Context) error {
	names := []string{"index.lock", "HEAD.lock", filepath.Join("refs", "heads", branch+".lock")}
	if h.instance != "" {
		names = append(names, h.git.index+".lock", filepath.FromSlash(h.ref)+".lock")
	}
	for _, name := range names {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(h.git.gitDir, name)
		}
		for {
			st, err := os.Stat(p)
			if err != nil {
				break
			}
			if time.Since(st.ModTime()) > staleAfter {
				if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
					return fmt.Errorf("remove stale %s: %w", name, err)
				}
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("wait for %s: %w", name, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}
