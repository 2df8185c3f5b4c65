package terminal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// LocalConfig says where and how a Local environment runs commands.
type LocalConfig struct {
	// Workspace is the directory commands run in; it must exist.
	Workspace string
	// ReadOnly marks a read-only session: Local then refuses every
	// operation with ErrReadOnlyLocal, since the host cannot enforce it.
	ReadOnly bool
	// BaseEnv is the environment every command starts from, as KEY=VALUE;
	// nothing else of this process's environment is passed on (nil starts
	// from an empty one). The engine gives a session's commands the base
	// environment agents get (harness.BaseEnv); the operator's own terminal
	// passes os.Environ() itself.
	BaseEnv []string
	// Env holds extra KEY=VALUE variables for every command.
	Env []string
	// Shell is what Shell starts when given no command; empty means $SHELL,
	// or /bin/sh without it.
	Shell string
}

// Local runs a session's commands on the host, in the workspace. Every
// command gets its own process group, and the whole group is killed when the
// command ends, times out, is cancelled, or the environment closes, so no
// process is left behind (except one that deliberately leaves the group with
// setsid).
type Local struct {
	cfg LocalConfig

	mu     sync.Mutex
	closed bool
	groups map[int]struct{} // process groups still running
}

var _ Env = (*Local)(nil)

// NewLocal checks cfg and returns a Local environment. It starts nothing.
func NewLocal(cfg LocalConfig) (*Local, error) {
	if cfg.Workspace == "" {
		return nil, fmt.Errorf("local environment: %w: no workspace", ErrBadRequest)
	}
	st, err := os.Stat(cfg.Workspace)
	if err != nil {
		return nil, fmt.Errorf("local environment: workspace: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("local environment: %w: workspace %s is not a directory", ErrBadRequest, cfg.Workspace)
	}
	if err := ValidateEnv(cfg.Env); err != nil {
		return nil, fmt.Errorf("local environment: %w", err)
	}
	if cfg.Shell == "" {
		cfg.Shell = os.Getenv("SHELL")
	}
	if cfg.Shell == "" {
		cfg.Shell = "/bin/sh"
	}
	return &Local{cfg: cfg, groups: map[int]struct{}{}}, nil
}

// Close kills every process group still running and refuses later work.
func (l *Local) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for pgid := range l.groups {
		killGroup(pgid)
	}
	return nil
}

// usable says whether the environment may start something.
func (l *Local) usable(op string) error {
	if l.cfg.ReadOnly {
		return fmt.Errorf("%s: %w", op, ErrReadOnlyLocal)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("%s: %w", op, ErrClosed)
	}
	return nil
}

// start starts cmd in a new process group and tracks the group, unless the
// environment closed meanwhile.
func (l *Local) start(cmd *exec.Cmd, group func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if err := group(); err != nil {
		return err
	}
	l.groups[cmd.Process.Pid] = struct{}{}
	return nil
}

// ended kills what is left of a group and forgets it.
func (l *Local) ended(pgid int) {
	killGroup(pgid)
	l.mu.Lock()
	delete(l.groups, pgid)
	l.mu.Unlock()
}

// command builds an exec.Cmd for argv in the workspace (or dir below it).
func (l *Local) command(argv []string, dir string, env []string) (*exec.Cmd, error) {
	wd, err := ResolveDir(l.cfg.Workspace, dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(wd); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: working directory %q is not a directory of the workspace", ErrBadRequest, dir)
	}
	if err := ValidateEnv(env); err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = wd
	cmd.Env = append(append(append([]string{}, l.cfg.BaseEnv...), l.cfg.Env...), env...)
	return cmd, nil
}

// Exec runs req in its own process group on the host.
func (l *Local) Exec(ctx context.Context, req ExecRequest) (ExecResult, error) {
	if err := l.usable("exec"); err != nil {
		return ExecResult{}, err
	}
	argv, err := req.Argv("/bin/sh")
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec: %w", err)
	}
	cmd, err := l.command(argv, req.Dir, req.Env)
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec %s: %w", argv[0], err)
	}
	if err := ctx.Err(); err != nil {
		return ExecResult{Cancelled: true, ExitCode: -1}, nil
	}
	var p execPipes
	if err := p.open(cmd); err != nil {
		return ExecResult{}, fmt.Errorf("exec %s: %w", argv[0], err)
	}
	defer p.closeAll()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	began := time.Now()
	if err := l.start(cmd, cmd.Start); err != nil {
		if errors.Is(err, ErrClosed) {
			return ExecResult{}, fmt.Errorf("exec %s: %w", argv[0], err)
		}
		return startFailure(err, began), nil
	}
	pgid := cmd.Process.Pid
	p.closeChildEnds()
	capture := NewCapture(req)
	drained := p.drain(capture, req.Stdin)

	var res ExecResult
	exited := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		var timeout <-chan time.Time
		if req.Timeout > 0 {
			t := time.NewTimer(req.Timeout)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-exited:
		case <-ctx.Done():
			res.Cancelled = true
			killGroup(pgid)
		case <-timeout:
			res.TimedOut = true
			killGroup(pgid)
		}
	}()
	waitErr := cmd.Wait()
	close(exited)
	<-watched
	l.ended(pgid)
	res.Duration = time.Since(began)
	p.finish(drained)
	capture.Fill(&res)
	code, err := exitCode(cmd.ProcessState, waitErr)
	if err != nil {
		return res, fmt.Errorf("exec %s: %w", argv[0], err)
	}
	res.ExitCode = code
	return res, nil
}

// startFailure reports a program that could not start the way a shell
// does: 127 when it does not exist, 126 when it cannot be executed.
func startFailure(err error, began time.Time) ExecResult {
	code := 126
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		code = 127
	}
	return ExecResult{ExitCode: code, Stderr: err.Error() + "\n", Duration: time.Since(began)}
}

// exitCode turns a finished process's state into a shell-style exit code.
func exitCode(st *os.ProcessState, waitErr error) (int, error) {
	if st == nil {
		return -1, waitErr
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return st.ExitCode(), nil
}

// killGroup kills a process group; a group already gone is not an error.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// drainGrace bounds how long Exec waits for output after the process group
// died: only a process that left the group can still hold the pipes open.
const drainGrace = 2 * time.Second

// execPipes are Exec's stdin, stdout and stderr pipes. They are plain
// os.Pipe pairs rather than exec.Cmd's own, so that Wait returns when the
// process ends and Exec decides how long to wait for the output.
type execPipes struct {
	inR, inW, outR, outW, errR, errW *os.File
}

func (p *execPipes) open(cmd *exec.Cmd) error {
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		return err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.inR, p.outW, p.errW
	return nil
}

// closePipe closes one end of a pipe. Nothing is buffered in a pipe's end
// for Close to flush, and an end closed twice (stdin's, by the feeder and
// by finish or Kill) reports os.ErrClosed: the error has nothing to say.
func closePipe(f *os.File) { _ = f.Close() }

func (p *execPipes) closeChildEnds() {
	closePipe(p.inR)
	closePipe(p.outW)
	closePipe(p.errW)
}

func (p *execPipes) closeAll() {
	for _, f := range []*os.File{p.inR, p.inW, p.outR, p.outW, p.errR, p.errW} {
		if f != nil {
			closePipe(f)
		}
	}
}

// drain feeds stdin and copies stdout and stderr into c; the channel closes
// when both outputs reached end of file.
func (p *execPipes) drain(c *Capture, stdin []byte) <-chan struct{} {
	go func() {
		if len(stdin) > 0 {
			_, _ = io.Copy(p.inW, bytes.NewReader(stdin))
		}
		closePipe(p.inW)
	}()
	var wg sync.WaitGroup
	for _, s := range []struct {
		r      *os.File
		stream Stream
	}{{p.outR, Stdout}, {p.errR, Stderr}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 32<<10)
			_, _ = io.CopyBuffer(c.Writer(s.stream), onlyReader{s.r}, buf)
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

// finish waits for the output to end, closing the pipes early if a process
// that escaped the group keeps them open.
func (p *execPipes) finish(drained <-chan struct{}) {
	closePipe(p.inW)
	select {
	case <-drained:
	case <-time.After(drainGrace):
		closePipe(p.outR)
		closePipe(p.errR)
		<-drained
	}
}

// onlyReader hides a reader's WriterTo, so io.CopyBuffer uses our buffer.
type onlyReader struct{ io.Reader }
