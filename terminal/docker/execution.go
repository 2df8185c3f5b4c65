package docker

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/atelier-studio/atelier/terminal"
)

// execSpec is one process to start in the container.
type execSpec struct {
	argv  []string
	env   []string
	dir   string
	tty   bool
	stdin bool
	size  terminal.Size
	tag   string // the starting Env's tag variable, added to env
}

// execution is a started exec and the hijacked connection to its stdio.
// Every exec carries a marker variable in its environment, which lets kill
// find the process and everything it started, whatever their process
// groups: Docker has no API to kill an exec.
type execution struct {
	eng         *Engine
	containerID string
	execID      string
	marker      string
	conn        client.HijackedResponse
}

// startExec creates and attaches an exec; the process runs once this returns.
func (e *Engine) startExec(ctx context.Context, containerID string, s execSpec) (*execution, error) {
	marker := "ATELIER_EXEC=" + randomHex(12)
	env := append(append([]string{}, s.env...), marker)
	if s.tag != "" {
		env = append(env, s.tag)
	}
	opts := client.ExecCreateOptions{
		Cmd:          s.argv,
		Env:          env,
		WorkingDir:   s.dir,
		TTY:          s.tty,
		AttachStdin:  s.stdin,
		AttachStdout: true,
		AttachStderr: true,
	}
	attach := client.ExecAttachOptions{TTY: s.tty}
	if s.tty {
		opts.ConsoleSize = client.ConsoleSize{Height: uint(s.size.Rows), Width: uint(s.size.Cols)}
		attach.ConsoleSize = opts.ConsoleSize
	}
	created, err := e.cli.ExecCreate(ctx, containerID, opts)
	if err != nil {
		if cerrdefs.IsNotFound(err) || cerrdefs.IsConflict(err) {
			return nil, fmt.Errorf("exec %s: %w: %w", s.argv[0], ErrContainerGone, err)
		}
		return nil, e.wrap("exec "+s.argv[0], err)
	}
	att, err := e.cli.ExecAttach(ctx, created.ID, attach)
	if err != nil {
		return nil, e.wrap("exec "+s.argv[0], err)
	}
	return &execution{eng: e, containerID: containerID, execID: created.ID, marker: marker, conn: att.HijackedResponse}, nil
}

// exitCode asks the engine how the exec ended, once its stream has ended.
// A container that stopped meanwhile gives ErrContainerGone: the exit code
// of an exec killed with its container means nothing.
func (x *execution) exitCode(ctx context.Context) (int, error) {
	// The stream has ended, so the command is gone; the engine says so a
	// moment later.
	deadline := time.Now().Add(exitReportLag)
	pause := 5 * time.Millisecond
	for {
		ins, err := x.eng.cli.ExecInspect(ctx, x.execID, client.ExecInspectOptions{})
		if cerrdefs.IsNotFound(err) {
			return -1, fmt.Errorf("exec: %w", ErrContainerGone)
		}
		if err != nil {
			return -1, x.eng.wrap("inspect exec", err)
		}
		up, err := x.eng.running(ctx, x.containerID)
		if err != nil {
			return -1, err
		}
		if !up {
			return -1, fmt.Errorf("exec: %w while the command ran", ErrContainerGone)
		}
		if !ins.Running {
			if ins.ExitCode > 128 && x.containerStops(ctx) {
				return -1, fmt.Errorf("exec: %w while the command ran", ErrContainerGone)
			}
			return ins.ExitCode, nil
		}
		if time.Now().After(deadline) {
			return -1, fmt.Errorf("exec: output ended but the engine still reports the command running after %s", exitReportLag)
		}
		select {
		case <-ctx.Done():
			return -1, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(pause*2, 100*time.Millisecond)
	}
}

// exitReportLag bounds how long after a command's output ends the engine
// may still report it running.
const exitReportLag = 5 * time.Second

// containerStops tells a command killed by a signal from one killed with its
// container: the engine may report the exec's end before the container's.
func (x *execution) containerStops(ctx context.Context) bool {
	for i := 0; i < 10; i++ {
		time.Sleep(20 * time.Millisecond)
		if up, err := x.eng.running(ctx, x.containerID); err == nil && !up {
			return true
		}
	}
	return false
}

// killScript kills every process with an environment entry matching $1 (a
// basic regular expression for the whole entry: a marker, or a tag
// pattern), again until none is left (a process may fork while it is being
// killed).
const killScript = `n=0
while [ $n -lt 50 ]; do
	found=
	for d in /proc/[0-9]*; do
		if tr '\0' '\n' < "$d/environ" 2>/dev/null | grep -qx "$1"; then
			kill -9 "${d#/proc/}" 2>/dev/null && found=1
		fi
	done
	[ -z "$found" ] && exit 0
	n=$((n+1))
done
exit 1`

// kill kills the exec's process and everything it started.
//
// A kill can come before the exec's process exists (right after Spawn
// returns, the engine may not have started it yet): the script then finds
// nothing, and the process starts afterwards and runs on. So the kill is
// repeated until the engine reports the exec started and ended (1 run in 12
// of TestDockerSpawnRoundTrip left a `sleep` running before).
func (x *execution) kill(ctx context.Context) error {
	deadline := time.Now().Add(killSettle)
	for {
		code, out, err := x.eng.run(ctx, x.containerID, []string{"/bin/sh", "-c", killScript, "atelier-kill", x.marker}, "")
		if err != nil {
			return fmt.Errorf("kill exec: %w", err)
		}
		if code != 0 {
			return fmt.Errorf("kill exec: exit %d: %s", code, strings.TrimSpace(out))
		}
		ins, err := x.eng.cli.ExecInspect(ctx, x.execID, client.ExecInspectOptions{})
		if cerrdefs.IsNotFound(err) {
			return nil // gone with its container
		}
		if err != nil {
			return x.eng.wrap("kill exec: inspect", err)
		}
		if ins.PID != 0 && !ins.Running {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kill exec: the command still runs %s after it was killed", killSettle)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// killSettle bounds how long a kill waits for the exec to have started and
// ended.
const killSettle = 10 * time.Second

// run runs a short command in the container as the container's user (or
// user when set) and returns its exit code and combined output.
func (e *Engine) run(ctx context.Context, containerID string, argv []string, user string) (int, string, error) {
	created, err := e.cli.ExecCreate(ctx, containerID, client.ExecCreateOptions{
		Cmd: argv, User: user, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		if cerrdefs.IsNotFound(err) || cerrdefs.IsConflict(err) {
			return -1, "", fmt.Errorf("%w: %w", ErrContainerGone, err)
		}
		return -1, "", e.wrap("exec", err)
	}
	att, err := e.cli.ExecAttach(ctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return -1, "", e.wrap("exec", err)
	}
	defer att.Close()
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, att.Reader); err != nil {
		return -1, out.String(), e.wrap("exec output", err)
	}
	x := execution{eng: e, containerID: containerID, execID: created.ID}
	code, err := x.exitCode(ctx)
	return code, out.String(), err
}
