package cli

import (
	"errors"
	"fmt"
)

// Exit codes of every command, documented in docs/cli.md.
const (
	ExitOK        = 0   // the session completed, or the command did what it was asked
	ExitFailed    = 1   // the session failed, or the command hit an error
	ExitUsage     = 2   // bad flags or arguments
	ExitCancelled = 3   // the session was cancelled
	ExitNeedsYou  = 4   // the session waits on the operator (WAITING, or parked on what headless mode cannot answer)
	ExitTimedOut  = 124 // `sessions exec`: the command ran past --timeout and was killed (as timeout(1) says)
)

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// ExitCode maps an error returned by a command to the process's exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitFailed
}
