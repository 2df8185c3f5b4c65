package docker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"

	"github.com/atelier-studio/atelier/terminal"
)

// killGrace bounds how long a killed exec may take to close its stream
// before the connection is dropped.
const killGrace = 5 * time.Second

// Exec runs req in the session's container, making the container first if
// needed. A timeout or cancellation kills the command and all it started.
func (v *Env) Exec(ctx context.Context, req terminal.ExecRequest) (terminal.ExecResult, error) {
	argv, err := req.Argv("/bin/sh")
	if err != nil {
		return terminal.ExecResult{}, fmt.Errorf("exec: %w", err)
	}
	dir, err := terminal.ResolveDir(v.cfg.MountPath, req.Dir)
	if err != nil {
		return terminal.ExecResult{}, fmt.Errorf("exec %s: %w", argv[0], err)
	}
	if err := terminal.ValidateEnv(req.Env); err != nil {
		return terminal.ExecResult{}, fmt.Errorf("exec %s: %w", argv[0], err)
	}
	if ctx.Err() != nil {
		return terminal.ExecResult{Cancelled: true, ExitCode: -1}, nil
	}
	id, tag, err := v.container(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return terminal.ExecResult{Cancelled: true, ExitCode: -1}, nil
		}
		return terminal.ExecResult{}, fmt.Errorf("exec %s: %w", argv[0], err)
	}
	// The command is killed explicitly: cutting the connection would leave
	// it running in the container.
	api := context.WithoutCancel(ctx)
	began := time.Now()
	x, err := v.eng.startExec(api, id, execSpec{argv: argv, env: req.Env, dir: dir, stdin: len(req.Stdin) > 0, tag: tag})
	if err != nil {
		if errors.Is(err, ErrContainerGone) {
			v.lost(id)
		}
		return terminal.ExecResult{}, err
	}
	defer x.conn.Close()
	capture := terminal.NewCapture(req)
	streamed := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(capture.Writer(terminal.Stdout), capture.Writer(terminal.Stderr), x.conn.Reader)
		streamed <- err
	}()
	if len(req.Stdin) > 0 {
		go func() {
			_, _ = x.conn.Conn.Write(req.Stdin)
			_ = x.conn.CloseWrite()
		}()
	}

	var res terminal.ExecResult
	var timeout <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(req.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var streamErr error
	select {
	case streamErr = <-streamed:
	case <-ctx.Done():
		res.Cancelled = true
	case <-timeout:
		res.TimedOut = true
	}
	if res.Cancelled || res.TimedOut {
		killErr := x.kill(api)
		select {
		case streamErr = <-streamed:
		case <-time.After(killGrace):
			x.conn.Close()
			streamErr = <-streamed
			if killErr == nil {
				killErr = errors.New("the command's output did not end after the kill")
			}
		}
		if killErr != nil && !errors.Is(killErr, ErrContainerGone) {
			return res, fmt.Errorf("exec %s: stop after %s: %w", argv[0], stopReason(res), killErr)
		}
	}
	res.Duration = time.Since(began)
	capture.Fill(&res)
	code, err := x.exitCode(api)
	if err != nil {
		if errors.Is(err, ErrContainerGone) {
			v.lost(id)
		}
		return res, fmt.Errorf("exec %s: %w", argv[0], err)
	}
	if streamErr != nil {
		return res, v.eng.wrap("exec "+argv[0]+" output", streamErr)
	}
	res.ExitCode = code
	runtimeFailure(&res)
	return res, nil
}

// runtimeFailure turns the runtime's report of a program that could not
// start (on stdout, exit 126) into what Local and shells give: the message
// on stderr, and 127 for a program not found.
func runtimeFailure(r *terminal.ExecResult) {
	if r.ExitCode != 126 && r.ExitCode != 127 || !strings.HasPrefix(r.Stdout, "OCI runtime exec failed") {
		return
	}
	r.Stderr = strings.TrimRight(r.Stdout, "\r\n") + "\n" + r.Stderr
	r.Stdout = ""
	if strings.Contains(r.Stderr, "not found") || strings.Contains(r.Stderr, "no such file") {
		r.ExitCode = 127
	}
}

func stopReason(r terminal.ExecResult) string {
	if r.TimedOut {
		return "timeout"
	}
	return "cancellation"
}
