package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Exit codes of every command, documented in docs/cli.md.
const (
	ExitOK        = 0   // the session completed, or the command did what it was asked
	ExitFailed    = 1   // the session failed, or the command hit an error
	ExitUsage     = 2   // bad flags or arguments
	ExitCancelled = 3   // the session was cancelled
	ExitNeedsYou  = 4   // the session waits on the operator (WAITING, or parked on what headless mode cannot answer)
	ExitOutput    = 5   // --output: the answer has no JSON that matches the output schema
	ExitConflict  = 6   // `instances`: refused by the workspace's state (a conflict, an instance in use)
	ExitTimedOut  = 124 // `sessions exec`: the command ran past --timeout and was killed (as timeout(1) says)
	// ExitSignal plus a signal's number is the exit code of a process that
	// a second SIGINT (130) or SIGTERM (143) ended at once, as shells
	// report a process a signal ended.
	ExitSignal = 128
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

// interrupts makes a second SIGINT or SIGTERM end the process at once
// while a command stays with a session or closes an engine that ran one.
// The first is the command's: its context ends (run cancels the session,
// --wait stops following) and the command finishes on its own. Whatever it
// then waits for (the engine writing to a failing disk, a history commit,
// an agent that ignores the cancel), the operator is never left with a
// process that cannot be stopped short of kill -9.
//
// Signals belong to the process, so this is one value for the process:
// arms nest, and the count of signals survives from one arm to the next
// (a follow that saw the first signal, then the close of the engine).
var interrupts = interruptState{
	exit: os.Exit,
	warn: func(msg string) { fmt.Fprintln(os.Stderr, msg) },
}

// interruptState is the state behind interrupts.
type interruptState struct {
	mu   sync.Mutex
	arms int
	seen int            // SIGINT and SIGTERM received while armed, or known from a context
	ch   chan os.Signal // nil while disarmed
	quit chan struct{}
	exit func(code int)   // os.Exit; a test replaces it
	warn func(msg string) // the last line on standard error
}

// armInterrupts counts SIGINT and SIGTERM until the returned disarm is
// called, and ends the process at the second. ctx is the command's: when
// a signal already ended it, the next signal is the second.
func armInterrupts(ctx context.Context) (disarm func()) { return interrupts.arm(ctx) }

// arm is armInterrupts on one state (a test's own).
func (in *interruptState) arm(ctx context.Context) (disarm func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if ctx.Err() != nil && context.Cause(ctx) != ctx.Err() { //nolint:errorlint // identity: a cause other than the plain cancel
		// signal.NotifyContext ends the command's context with the
		// signal as its cause; a plain cancel has none.
		in.seen = max(in.seen, 1)
	}
	in.arms++
	if in.arms == 1 {
		in.ch, in.quit = make(chan os.Signal, 2), make(chan struct{})
		signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
		go in.watch(in.ch, in.quit)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			in.mu.Lock()
			defer in.mu.Unlock()
			in.arms--
			if in.arms == 0 {
				signal.Stop(in.ch)
				close(in.quit)
				in.ch, in.quit = nil, nil
			}
		})
	}
}

// watch counts the signals of one arm; the second ends the process.
func (in *interruptState) watch(ch <-chan os.Signal, quit <-chan struct{}) {
	for {
		select {
		case <-quit:
			return
		case sig := <-ch:
			in.mu.Lock()
			in.seen++
			second, exit, warn := in.seen >= 2, in.exit, in.warn
			in.mu.Unlock()
			if !second {
				continue
			}
			name, code := "SIGINT", ExitSignal+int(syscall.SIGINT)
			if sig == syscall.SIGTERM {
				name, code = "SIGTERM", ExitSignal+int(syscall.SIGTERM)
			}
			warn(fmt.Sprintf("atelier: a second %s: exiting at once (exit %d) without waiting for the engine; "+
				"the session is left as its files say, and the next process that runs the workspace's sessions settles it", name, code))
			exit(code)
		}
	}
}
