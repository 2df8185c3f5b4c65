package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// ExecSpec is a command to run for a session.
type ExecSpec struct {
	SessionID string
	Dir       string
	Command   string // run by /bin/sh -c
	Env       []string
	Timeout   time.Duration
	ReadOnly  bool // the session's access is read-only
}

// ExecResult is what a command did. A non-zero exit is a result, not an
// error.
type ExecResult struct {
	ExitCode  int    `json:"exit_code"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	TimedOut  bool   `json:"timed_out,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// Runner runs commands in a session's execution environment.
type Runner interface {
	Exec(ctx context.Context, spec ExecSpec) (ExecResult, error)
}

// ErrReadOnlyExec is returned for an exec of a read-only session where
// nothing enforces read-only (the host).
var ErrReadOnlyExec = errors.New("a read-only session cannot exec on the host: only a container that mounts the workspace read-only enforces it")

// LocalRunner runs commands on the host, in their own process group so a
// timeout or a cancel kills everything they started.
type LocalRunner struct {
	// MaxOutput caps each of stdout and stderr; 0 means 1 MiB.
	MaxOutput int
}

// Exec implements Runner.
func (r LocalRunner) Exec(ctx context.Context, spec ExecSpec) (ExecResult, error) {
	if spec.ReadOnly {
		return ExecResult{}, ErrReadOnlyExec
	}
	limit := r.MaxOutput
	if limit <= 0 {
		limit = 1 << 20
	}
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, spec.Timeout)
		defer cancel()
	}
	cmd := exec.Command("/bin/sh", "-c", spec.Command)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb capped
	out.limit, errb.limit = limit, limit
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return ExecResult{}, fmt.Errorf("exec %q: %w", spec.Command, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	res := ExecResult{Stdout: out.String(), Stderr: errb.String(), Truncated: out.cut || errb.cut}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			res.TimedOut, res.ExitCode = true, -1
			return res, nil
		}
		return res, context.Cause(ctx)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.ExitCode = ee.ExitCode()
		return res, nil
	}
	return res, err
}

// capped keeps the first limit bytes written to it.
type capped struct {
	bytes.Buffer
	limit int
	cut   bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.limit - c.Len()
	if room < len(p) {
		c.cut = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}
