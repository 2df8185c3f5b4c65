package sessions

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// RecoveryFile, in a session's folder, counts the engines that resumed the
// session's interrupted turn after a crash and did not see it reach a
// boundary: each such engine crashed (or was killed) on the way. The
// engine holds a session whose count reached MaxRecoveries read-only
// instead of resuming it again.
const RecoveryFile = "recovery"

// MaxRecoveries is how many resumes of one interrupted turn may end in a
// crash before the session is held read-only.
const MaxRecoveries = 2

// Recoveries reads how many resumes of the session's interrupted turn
// ended in a crash; 0 when none (or the count is unreadable: a torn count
// must not hold a session).
func (s *Store) Recoveries(id string) int {
	f, err := s.file(id, RecoveryFile).open(os.O_RDONLY, 0)
	if err != nil {
		return 0
	}
	defer closeRead(f)
	b, err := io.ReadAll(io.LimitReader(f, 32))
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// SetRecoveries records, durably, that n resumes of the session's
// interrupted turn are under way or ended in a crash; 0 removes the record
// (the turn reached a boundary).
func (s *Store) SetRecoveries(id string, n int) error {
	f := s.file(id, RecoveryFile)
	if n > 0 {
		return f.writeAtomic([]byte(strconv.Itoa(n)+"\n"), 0o644)
	}
	if err := os.Remove(f.path()); err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOENT) {
		return fmt.Errorf("clear the recovery count of session %s: %w", id, err)
	}
	return nil
}
