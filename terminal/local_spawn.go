package terminal

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// Spawn starts command in its own process group with piped stdio.
func (l *Local) Spawn(ctx context.Context, command []string, env []string) (Process, error) {
	if err := l.usable("spawn"); err != nil {
		return nil, err
	}
	if len(command) == 0 || command[0] == "" {
		return nil, fmt.Errorf("spawn: %w: no command", ErrBadRequest)
	}
	cmd, err := l.command(command, "", env)
	if err != nil {
		return nil, fmt.Errorf("spawn %s: %w", command[0], err)
	}
	var p execPipes
	if err := p.open(cmd); err != nil {
		p.closeAll()
		return nil, fmt.Errorf("spawn %s: %w", command[0], err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := l.start(cmd, cmd.Start); err != nil {
		p.closeAll()
		return nil, fmt.Errorf("spawn %s: %w", command[0], err)
	}
	p.closeChildEnds()
	lp := &localProcess{
		pgid:   cmd.Process.Pid,
		stdin:  p.inW,
		stdout: p.outR,
		stderr: p.errR,
		done:   make(chan struct{}),
	}
	stop := context.AfterFunc(ctx, func() { _ = lp.Kill() })
	go func() {
		waitErr := cmd.Wait()
		stop()
		l.ended(lp.pgid)
		lp.code, lp.err = exitCode(cmd.ProcessState, waitErr)
		if lp.err != nil {
			lp.err = fmt.Errorf("spawn %s: %w", command[0], lp.err)
		}
		close(lp.done)
	}()
	return lp, nil
}

// localProcess is a Spawn on the host. Its output pipes are closed by the
// reader reaching end of file, or by Kill.
type localProcess struct {
	pgid                  int
	stdin, stdout, stderr *os.File

	done     chan struct{}
	code     int
	err      error
	killOnce sync.Once
}

func (p *localProcess) Stdin() io.WriteCloser { return p.stdin }
func (p *localProcess) Stdout() io.Reader     { return p.stdout }
func (p *localProcess) Stderr() io.Reader     { return p.stderr }

func (p *localProcess) Wait() (int, error) {
	<-p.done
	return p.code, p.err
}

// Kill kills the process group, then closes stdin so a writer does not block
// on a process that is gone.
func (p *localProcess) Kill() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	p.killOnce.Do(func() {
		killGroup(p.pgid)
		closePipe(p.stdin)
	})
	return nil
}
