//go:build unix

package config

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on path, created if needed, so
// two processes updating the trust file do not lose each other's change.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close() // the lock's failure is the error to report
		return nil, err
	}
	return func() {
		// Closing the file releases the lock whatever the unlock says,
		// and nothing was written to it.
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
