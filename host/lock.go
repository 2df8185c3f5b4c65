package host

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrRunning is returned by Run when another process hosts the workspace.
type ErrRunning struct {
	Workspace string
	PID       int // 0 when the other host has not said yet
	Socket    string
}

func (e *ErrRunning) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("the engine of %s is already hosted by another process (socket %s)", e.Workspace, e.Socket)
	}
	return fmt.Sprintf("the engine of %s is already hosted by process %d (socket %s)", e.Workspace, e.PID, e.Socket)
}

// lockTries bounds how often taking the lock is retried: a process that
// only probes it (Status) holds it shared for microseconds.
const (
	lockTries = 10
	lockRetry = 20 * time.Millisecond
)

// errLocked says the lock is held by another process.
var errLocked = errors.New("locked")

// takeLock opens the lock file (never through a symbolic link) and takes
// its exclusive flock. It returns errLocked when another process holds it.
// The lock is released when the file is closed or the process ends.
func takeLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the host lock: %w", err)
	}
	for i := 0; ; i++ {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) || i == lockTries-1 {
			break
		}
		time.Sleep(lockRetry)
	}
	_ = f.Close() // nothing was written through it
	if errors.Is(err, unix.EWOULDBLOCK) {
		return nil, errLocked
	}
	return nil, fmt.Errorf("lock %s: %w", path, err)
}

// lockHeld reports whether some process holds the lock: it probes it with
// a shared, non-blocking flock that it releases at once. A missing lock
// file is not held.
func lockHeld(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open the host lock: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only: closing releases the probe
	err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, unix.EWOULDBLOCK):
		return true, nil
	}
	return false, fmt.Errorf("probe the host lock %s: %w", path, err)
}
