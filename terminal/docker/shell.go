package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/moby/moby/client"

	"github.com/atelier-studio/atelier/terminal"
)

// Shell starts command (the configured shell when empty) in the session's
// container on a TTY of the given size.
func (v *Env) Shell(ctx context.Context, size terminal.Size, command []string) (terminal.PTY, error) {
	if !size.Valid() {
		return nil, fmt.Errorf("shell: %w: size %dx%d", terminal.ErrBadRequest, size.Cols, size.Rows)
	}
	if len(command) == 0 {
		command = []string{v.cfg.Shell}
	}
	if command[0] == "" {
		return nil, fmt.Errorf("shell: %w: empty program name", terminal.ErrBadRequest)
	}
	id, tag, err := v.container(ctx)
	if err != nil {
		return nil, fmt.Errorf("shell %s: %w", command[0], err)
	}
	api := context.WithoutCancel(ctx)
	x, err := v.eng.startExec(api, id, execSpec{
		argv: command, env: []string{"TERM=xterm-256color"}, dir: v.cfg.MountPath,
		tty: true, stdin: true, size: size, tag: tag,
	})
	if err != nil {
		if errors.Is(err, ErrContainerGone) {
			v.lost(id)
		}
		return nil, fmt.Errorf("shell: %w", err)
	}
	t := &tty{x: x, out: newBufPipe(), done: make(chan struct{})}
	// Engines before API 1.42 ignore the size given at start.
	if err := t.Resize(size); err != nil {
		_ = t.Close() // best effort: the resize error is the one to report
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = t.Close() })
	go func() {
		_, err := io.Copy(t.out, x.conn.Reader)
		t.out.closeWrite(nil)
		stop()
		t.code, t.err = x.exitCode(context.Background())
		if t.err == nil && err != nil && !t.isClosed() {
			t.err = fmt.Errorf("shell output: %w", err)
		}
		if errors.Is(t.err, ErrContainerGone) {
			v.lost(id)
		}
		close(t.done)
	}()
	return t, nil
}

// tty is an interactive exec with a TTY.
type tty struct {
	x   *execution
	out *bufPipe

	done chan struct{}
	code int
	err  error

	mu     sync.Mutex
	closed bool
}

func (t *tty) Read(b []byte) (int, error)  { return t.out.Read(b) }
func (t *tty) Write(b []byte) (int, error) { return t.x.conn.Conn.Write(b) }

func (t *tty) Resize(s terminal.Size) error {
	if !s.Valid() {
		return fmt.Errorf("resize: %w: size %dx%d", terminal.ErrBadRequest, s.Cols, s.Rows)
	}
	_, err := t.x.eng.cli.ExecResize(context.Background(), t.x.execID, client.ExecResizeOptions{Height: uint(s.Rows), Width: uint(s.Cols)})
	if err != nil {
		return t.x.eng.wrap("resize tty", err)
	}
	return nil
}

func (t *tty) Wait() (int, error) {
	<-t.done
	return t.code, t.err
}

func (t *tty) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// Close hangs up: it kills the program and all it started and drops the
// connection.
func (t *tty) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	var err error
	select {
	case <-t.done:
	default:
		err = t.x.kill(context.Background())
	}
	t.x.conn.Close()
	if err != nil && !errors.Is(err, ErrContainerGone) {
		return fmt.Errorf("close shell: %w", err)
	}
	return nil
}
