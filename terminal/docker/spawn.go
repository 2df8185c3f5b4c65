package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"

	"github.com/atelier-studio/atelier/terminal"
)

// Spawn starts command in the session's container with its stdio attached.
func (v *Env) Spawn(ctx context.Context, command []string, env []string) (terminal.Process, error) {
	if len(command) == 0 || command[0] == "" {
		return nil, fmt.Errorf("spawn: %w: no command", terminal.ErrBadRequest)
	}
	if err := terminal.ValidateEnv(env); err != nil {
		return nil, fmt.Errorf("spawn %s: %w", command[0], err)
	}
	id, tag, err := v.container(ctx)
	if err != nil {
		return nil, fmt.Errorf("spawn %s: %w", command[0], err)
	}
	x, err := v.eng.startExec(context.WithoutCancel(ctx), id, execSpec{argv: command, env: env, dir: v.cfg.MountPath, stdin: true, tag: tag})
	if err != nil {
		if errors.Is(err, ErrContainerGone) {
			v.lost(id)
		}
		return nil, fmt.Errorf("spawn: %w", err)
	}
	p := &process{env: v, x: x, stdout: newBufPipe(), stderr: newBufPipe(), done: make(chan struct{})}
	stop := context.AfterFunc(ctx, func() { _ = p.Kill() })
	go func() {
		_, err := stdcopy.StdCopy(p.stdout, p.stderr, x.conn.Reader)
		p.stdout.closeWrite(nil)
		p.stderr.closeWrite(nil)
		stop()
		x.conn.Close()
		p.code, p.err = x.exitCode(context.Background())
		if p.err == nil && err != nil && !p.killed() {
			p.err = v.eng.wrap("spawn "+command[0]+" output", err)
		}
		if errors.Is(p.err, ErrContainerGone) {
			v.lost(id)
		}
		close(p.done)
	}()
	return p, nil
}

// process is a Spawn in a container.
type process struct {
	env            *Env
	x              *execution
	stdout, stderr *bufPipe

	done chan struct{}
	code int
	err  error

	mu       sync.Mutex
	killDone bool
}

func (p *process) Stdin() io.WriteCloser { return stdinConn{p.x} }
func (p *process) Stdout() io.Reader     { return p.stdout }
func (p *process) Stderr() io.Reader     { return p.stderr }

func (p *process) Wait() (int, error) {
	<-p.done
	return p.code, p.err
}

func (p *process) killed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.killDone
}

// Kill kills the process and all it started; if the container cannot be
// reached for that, it drops the connection.
func (p *process) Kill() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	p.mu.Lock()
	if p.killDone {
		p.mu.Unlock()
		return nil
	}
	p.killDone = true
	p.mu.Unlock()
	err := p.x.kill(context.Background())
	select {
	case <-p.done:
	case <-time.After(killGrace):
		p.x.conn.Close()
	}
	if err != nil && !errors.Is(err, ErrContainerGone) {
		return fmt.Errorf("kill: %w", err)
	}
	return nil
}

// stdinConn writes to an exec's stdin; Close half-closes the connection,
// which the process reads as end of file.
type stdinConn struct{ x *execution }

func (s stdinConn) Write(b []byte) (int, error) { return s.x.conn.Conn.Write(b) }
func (s stdinConn) Close() error                { return s.x.conn.CloseWrite() }
