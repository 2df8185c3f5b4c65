package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Shell starts command (the configured shell when empty) on a new pty, as
// the leader of its own session, with TERM=xterm-256color.
func (l *Local) Shell(ctx context.Context, size Size, command []string) (PTY, error) {
	if err := l.usable("shell"); err != nil {
		return nil, err
	}
	if !size.Valid() {
		return nil, fmt.Errorf("shell: %w: size %dx%d", ErrBadRequest, size.Cols, size.Rows)
	}
	if len(command) == 0 {
		command = []string{l.cfg.Shell}
	}
	if command[0] == "" {
		return nil, fmt.Errorf("shell: %w: empty program name", ErrBadRequest)
	}
	cmd, err := l.command(command, "", []string{"TERM=xterm-256color"})
	if err != nil {
		return nil, fmt.Errorf("shell %s: %w", command[0], err)
	}
	var ptmx *os.File
	err = l.start(cmd, func() error {
		var err error
		ptmx, err = pty.StartWithAttrs(cmd, winsize(size), &syscall.SysProcAttr{Setsid: true, Setctty: true})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("shell %s: %w", command[0], err)
	}
	lp := &localPTY{File: ptmx, pgid: cmd.Process.Pid, done: make(chan struct{})}
	stop := context.AfterFunc(ctx, func() { killGroup(lp.pgid) })
	go func() {
		waitErr := cmd.Wait()
		stop()
		l.ended(lp.pgid)
		lp.code, lp.err = exitCode(cmd.ProcessState, waitErr)
		close(lp.done)
	}()
	return lp, nil
}

func winsize(s Size) *pty.Winsize {
	return &pty.Winsize{Rows: uint16(s.Rows), Cols: uint16(s.Cols)}
}

// localPTY is the master side of a host pty and the program behind it.
type localPTY struct {
	*os.File
	pgid int

	done      chan struct{}
	code      int
	err       error
	closeOnce sync.Once
}

// Read returns io.EOF, not EIO, once the program and its session are gone.
func (p *localPTY) Read(b []byte) (int, error) {
	n, err := p.File.Read(b)
	if err != nil && errors.Is(err, syscall.EIO) {
		return n, io.EOF
	}
	return n, err
}

func (p *localPTY) Resize(s Size) error {
	if !s.Valid() {
		return fmt.Errorf("resize: %w: size %dx%d", ErrBadRequest, s.Cols, s.Rows)
	}
	// Through SyscallConn, not pty.Setsize: that takes File.Fd(), which
	// races with a Read in flight and the Close that ends the program (a
	// client resizing as the terminal is closed); Control holds the
	// descriptor open for the call and keeps the file non-blocking.
	raw, err := p.SyscallConn()
	if err != nil {
		return fmt.Errorf("resize pty: %w", err)
	}
	var ioErr error
	ws := &unix.Winsize{Row: uint16(s.Rows), Col: uint16(s.Cols)}
	if err := raw.Control(func(fd uintptr) { ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws) }); err != nil {
		return fmt.Errorf("resize pty: %w", err)
	}
	if ioErr != nil {
		return fmt.Errorf("resize pty: %w", ioErr)
	}
	return nil
}

func (p *localPTY) Wait() (int, error) {
	<-p.done
	return p.code, p.err
}

// Close hangs up: it kills the program's process group and closes the pty.
func (p *localPTY) Close() error {
	var err error
	p.closeOnce.Do(func() {
		select {
		case <-p.done:
		default:
			killGroup(p.pgid)
		}
		err = p.File.Close()
	})
	return err
}
