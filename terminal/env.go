package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Env is one session's execution environment. Implementations allocate what
// they need (a container, say) on the first operation that needs it, so a
// session that never runs a command costs nothing, and release everything on
// Close. All methods are safe for concurrent use.
type Env interface {
	// Exec runs a command to completion in the workspace and returns its
	// result. A non-zero exit, a timeout and a cancellation are results, not
	// errors; an error means the command could not be run or its result
	// could not be known.
	Exec(ctx context.Context, req ExecRequest) (ExecResult, error)
	// Spawn starts a long-lived process whose stdin, stdout and stderr are
	// pipes, for agent CLIs that speak a protocol over stdio. Cancelling ctx
	// kills it. env holds extra KEY=VALUE variables.
	Spawn(ctx context.Context, command []string, env []string) (Process, error)
	// Shell starts an interactive command (the default shell when command
	// is empty) on a pty of the given size. Cancelling ctx kills it.
	Shell(ctx context.Context, size Size, command []string) (PTY, error)
	// Close kills what still runs and releases the environment. Operations
	// after Close fail with ErrClosed.
	Close() error
}

// Process is a running Spawn: its stdio pipes, and its end.
type Process interface {
	// Stdin is the process's standard input; closing it sends end of file.
	Stdin() io.WriteCloser
	// Stdout and Stderr end with io.EOF once the process and everything it
	// started have ended; read them until then, or output may block it.
	Stdout() io.Reader
	Stderr() io.Reader
	// Wait blocks until the process ends and returns its exit code (128 plus
	// the signal number when a signal ended it). A non-zero code is not an
	// error. Wait may be called more than once.
	Wait() (int, error)
	// Kill ends the process and everything it started.
	Kill() error
}

// PTY is a running Shell: reading returns what the program draws, writing
// types into it.
type PTY interface {
	io.ReadWriteCloser
	// Resize tells the program the terminal's new size (it sees SIGWINCH).
	Resize(size Size) error
	// Wait blocks until the program ends and returns its exit code.
	Wait() (int, error)
}

// Size is a terminal size in character cells.
type Size struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Valid reports whether both dimensions are positive and fit a pty.
func (s Size) Valid() bool {
	return s.Cols > 0 && s.Rows > 0 && s.Cols <= 0xffff && s.Rows <= 0xffff
}

// DefaultMaxOutput is the cap on each of stdout and stderr when an
// ExecRequest gives none: enough for a long build log, small enough to keep in
// an audit log.
const DefaultMaxOutput = 1 << 20

// ExecRequest says what Exec runs and how.
type ExecRequest struct {
	// Command is the program and its arguments, run without a shell.
	Command []string
	// ShellCommand is a command line run with /bin/sh -c. Exactly one of
	// Command and ShellCommand is set.
	ShellCommand string
	// Dir is the working directory relative to the workspace ("" for the
	// workspace itself); it may not leave the workspace.
	Dir string
	// Env holds extra KEY=VALUE variables.
	Env []string
	// Stdin is the command's standard input; empty means end of file.
	Stdin []byte
	// Timeout kills the command after this long; zero means none.
	Timeout time.Duration
	// MaxOutput caps what the result keeps of each of stdout and stderr, in
	// bytes; zero means DefaultMaxOutput. Beyond the cap the result keeps
	// the head and the tail and says how much it left out.
	MaxOutput int
	// OnChunk, when set, receives the output as it arrives, uncapped. It is
	// called from one goroutine at a time, in the order the bytes were read,
	// and must return quickly: a slow callback holds the command up. It must
	// not keep Data after it returns.
	OnChunk func(Chunk)
}

// Stream names an output stream of a command.
type Stream string

// The output streams of a command.
const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
)

// Chunk is a piece of a running command's output.
type Chunk struct {
	Stream Stream
	Data   []byte
}

// ExecResult is what a command did. It is plain data that encodes to JSON, so
// the engine can record it and return it again for an idempotent exec.
// Output that is not valid UTF-8 is kept as is in memory; JSON encoding
// replaces the invalid bytes.
type ExecResult struct {
	// ExitCode is the command's exit status, or 128 plus the signal number
	// when a signal ended it (as shells report it).
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	// StdoutTruncated and StderrTruncated say the stream outgrew MaxOutput:
	// its middle was left out (the text marks where).
	StdoutTruncated bool `json:"stdout_truncated,omitempty"`
	StderrTruncated bool `json:"stderr_truncated,omitempty"`
	// TimedOut says the command was killed at its Timeout.
	TimedOut bool `json:"timed_out,omitempty"`
	// Cancelled says the command was killed because its context ended.
	Cancelled bool `json:"cancelled,omitempty"`
	// Duration is the time from start to end, in nanoseconds in JSON.
	Duration time.Duration `json:"duration_ns"`
}

// Errors callers branch on. Implementations wrap them with the operation.
var (
	// ErrReadOnlyLocal refuses to run a read-only session's commands on the
	// host, where nothing enforces read-only.
	ErrReadOnlyLocal = errors.New("a read-only session cannot run commands on the host: read-only is only enforced in a container")
	// ErrClosed is returned by operations on an environment after Close.
	ErrClosed = errors.New("execution environment closed")
	// ErrBadRequest marks a request that cannot be run as given.
	ErrBadRequest = errors.New("bad request")
)

// Argv returns the program and arguments the request runs, given the shell
// used for ShellCommand (usually /bin/sh), or an ErrBadRequest error.
func (r ExecRequest) Argv(shell string) ([]string, error) {
	switch {
	case len(r.Command) > 0 && r.ShellCommand != "":
		return nil, fmt.Errorf("%w: both Command and ShellCommand are set", ErrBadRequest)
	case len(r.Command) > 0:
		if r.Command[0] == "" {
			return nil, fmt.Errorf("%w: empty program name", ErrBadRequest)
		}
		return r.Command, nil
	case r.ShellCommand != "":
		return []string{shell, "-c", r.ShellCommand}, nil
	default:
		return nil, fmt.Errorf("%w: no command", ErrBadRequest)
	}
}

// ValidateEnv checks that every entry is KEY=VALUE with a non-empty key
// free of '=' and NUL, so a typo fails before anything starts.
func ValidateEnv(env []string) error {
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsRune(kv, 0) {
			return fmt.Errorf("%w: environment entry %q is not KEY=VALUE", ErrBadRequest, kv)
		}
	}
	return nil
}

// ResolveDir joins a working directory relative to the workspace onto root,
// refusing one that is absolute or climbs out of the workspace.
func ResolveDir(root, dir string) (string, error) {
	if dir == "" || dir == "." {
		return root, nil
	}
	if path.IsAbs(filepath.ToSlash(dir)) {
		return "", fmt.Errorf("%w: working directory %q must be relative to the workspace", ErrBadRequest, dir)
	}
	clean := path.Clean(filepath.ToSlash(dir))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%w: working directory %q leaves the workspace", ErrBadRequest, dir)
	}
	return path.Join(filepath.ToSlash(root), clean), nil
}
