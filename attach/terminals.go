package attach

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/terminal"
)

// Terminals are the terminals of an engine that outlive the studio: the
// host owns their programs, so a studio that quits detaches from them and
// leaves them running, and the next studio attaches to them again, their
// scrollback replayed. Remote has them; an in-process engine's terminals
// end with the studio.
type Terminals interface {
	// Shell starts a program (the environment's shell when command is
	// empty) on a pty the host owns, in session's execution environment,
	// or in the workspace on the host without one, and attaches to it.
	// name is what a studio shows it as.
	Shell(ctx context.Context, session, name string, size terminal.Size, command []string) (terminal.PTY, error)
	// Running lists the host's terminals whose programs still run, oldest
	// first.
	Running(ctx context.Context) ([]Terminal, error)
	// Attach attaches to a running terminal, which replays its
	// scrollback.
	Attach(ctx context.Context, id string, size terminal.Size) (terminal.PTY, error)
}

// Terminal names a terminal the host owns.
type Terminal struct {
	ID      string
	Session string // "" for the workspace
	Name    string
}

// Detacher is a pty whose program goes on without it: Detach ends the
// attachment and leaves the program running for the next client.
type Detacher interface {
	Detach() error
	// TerminalID is the host's id of the terminal.
	TerminalID() string
}

// Shell implements Terminals.
func (r *Remote) Shell(ctx context.Context, session, name string, size terminal.Size, command []string) (terminal.PTY, error) {
	c := r.opts.Client
	req := client.TerminalRequest{Session: session, Name: name, Argv: command, Cols: size.Cols, Rows: size.Rows}
	var t client.Terminal
	err := whenListening(ctx, func() (err error) {
		t, err = c.OpenTerminal(ctx, req)
		return err
	})
	if err != nil {
		return nil, Err(err)
	}
	p, err := r.attach(ctx, t.ID, size)
	if err != nil {
		// The terminal is of no use unattached: it goes, and a failure to
		// end it is said beside the attach error.
		cerr := c.CloseTerminal(context.WithoutCancel(ctx), t.ID)
		return nil, errors.Join(err, Err(cerr))
	}
	return p, nil
}

// hostStartWait bounds how long a terminal waits for a host that is
// starting.
const hostStartWait = 15 * time.Second

// notListening reports whether err says nothing listens on the host's
// socket yet (no socket file, or nobody accepting).
func notListening(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// whenListening makes call, again every 100 ms while nothing listens on
// the host's socket, for up to hostStartWait: a studio opens at once and
// starts its host in the background, so what it asks of its terminals in
// its first seconds waits for the host rather than failing.
func whenListening(ctx context.Context, call func() error) error {
	err := call()
	for deadline := time.Now().Add(hostStartWait); err != nil && notListening(err) && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		err = call()
	}
	return err
}

// Running implements Terminals; it waits for a host that is starting.
func (r *Remote) Running(ctx context.Context) ([]Terminal, error) {
	var list []client.Terminal
	err := whenListening(ctx, func() (err error) {
		list, err = r.opts.Client.Terminals(ctx)
		return err
	})
	if err != nil {
		return nil, Err(err)
	}
	var out []Terminal
	for _, t := range list {
		if t.Running {
			out = append(out, Terminal{ID: t.ID, Session: t.Session, Name: t.Name})
		}
	}
	return out, nil
}

// Attach implements Terminals.
func (r *Remote) Attach(ctx context.Context, id string, size terminal.Size) (terminal.PTY, error) {
	return r.attach(ctx, id, size)
}

// attach attaches to terminal id and sizes it for this client.
func (r *Remote) attach(ctx context.Context, id string, size terminal.Size) (terminal.PTY, error) {
	c := r.opts.Client
	conn, err := c.AttachTerminal(ctx, id)
	if err != nil {
		return nil, Err(err)
	}
	p := &hostPTY{conn: conn, c: c, id: id, done: make(chan struct{})}
	if err := conn.Resize(size.Cols, size.Rows); err != nil {
		return nil, errors.Join(Err(err), conn.Close())
	}
	// Cancelling kills it, as a local pty's, unless it was detached. Its
	// caller is gone by then (a tab that closed): a failure to end it (the
	// host went away, and its terminals with it) is kept in p.err for a
	// later Close, not reported.
	context.AfterFunc(ctx, func() { _ = p.Close() })
	return p, nil
}

// hostPTY is a terminal the host owns, seen as a pty.
type hostPTY struct {
	conn *client.TerminalConn
	c    *client.Client
	id   string

	once  sync.Once
	done  chan struct{} // closed when Read saw the end
	close sync.Once     // Close or Detach, whichever comes first
	err   error
}

func (p *hostPTY) Read(b []byte) (int, error) {
	n, err := p.conn.Read(b)
	if err != nil {
		p.once.Do(func() { close(p.done) })
	}
	return n, err
}

func (p *hostPTY) Write(b []byte) (int, error) { return p.conn.Write(b) }

func (p *hostPTY) Resize(s terminal.Size) error { return p.conn.Resize(s.Cols, s.Rows) }

// Wait returns the program's exit code once its output ended.
func (p *hostPTY) Wait() (int, error) {
	<-p.done
	if code, ok := p.conn.ExitCode(); ok {
		return code, nil
	}
	return -1, errors.New("terminal: the connection to the host ended before the program did")
}

// Close ends the program and the attachment.
func (p *hostPTY) Close() error {
	p.close.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := p.c.CloseTerminal(ctx, p.id)
		if client.IsCode(err, client.CodeUnknownTerminal) {
			err = nil // it ended and was forgotten already
		}
		p.err = errors.Join(Err(err), p.conn.Close())
	})
	return p.err
}

// Detach ends the attachment only: the program runs on in the host. A
// later Close changes nothing.
func (p *hostPTY) Detach() error {
	p.close.Do(func() { p.err = p.conn.Close() })
	return p.err
}

// TerminalID implements Detacher.
func (p *hostPTY) TerminalID() string { return p.id }
