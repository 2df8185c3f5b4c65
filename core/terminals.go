package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/atelier-studio/atelier/terminal"
)

// Terminals the host owns.
//
// A terminal is a program on a pty that the engine starts and keeps: in the
// workspace on the host, or in a session's execution environment (its
// container for a Docker session). It belongs to the engine, not to a
// client, so the studio's terminal tabs attach to it, detach, and attach
// again after the studio restarts, while the program runs on.
//
// One goroutine per terminal (the pump) reads the pty and hands each piece
// of output to a fan-out: the scrollback ring and the queue of every
// attached client. The pump never waits for a client. Each client's queue
// is bounded in bytes; a client whose queue would overflow is dropped (its
// stream ends with ErrTerminalDropped) and may attach again, which replays
// the scrollback. So a client that stops reading costs at most its bound in
// memory and holds up neither the program nor the other clients, and a
// client that keeps reading is never dropped however the goroutines are
// scheduled: only what it has not taken yet counts against it, never time.

// Terminal limits.
const (
	// TerminalScrollback is how much of a terminal's latest output the
	// engine keeps and replays to each client that attaches.
	TerminalScrollback = 256 << 10
	// terminalClientQueue bounds the output one attached client has not
	// taken yet. It is larger than the scrollback (which attaching queues
	// at once) with room for bursts on top.
	terminalClientQueue = 1 << 20
	// terminalChunk bounds one piece Next returns: small enough for any
	// WebSocket client's default frame limit, big enough to keep frames
	// few.
	terminalChunk = 32 << 10
	// keptExited is how many ended terminals the engine keeps for their
	// exit code and scrollback until they are closed; beyond it the
	// oldest ended ones are forgotten, so abandoned terminals do not hold
	// memory for the host's lifetime.
	keptExited = 32
)

// Errors of terminals that callers branch on.
var (
	// ErrUnknownTerminal: no terminal has the id (or it was closed).
	ErrUnknownTerminal = errors.New("unknown terminal")
	// ErrTerminalExited: input or a resize for a program that has ended.
	ErrTerminalExited = errors.New("the terminal's program has ended")
	// ErrTerminalDropped ends the stream of a client that fell further
	// behind the output than its queue holds; attaching again replays the
	// scrollback.
	ErrTerminalDropped = errors.New("terminal client dropped: it fell behind the output")
)

// TerminalOptions say what OpenTerminal starts and where.
type TerminalOptions struct {
	// Session is the session whose execution environment runs the
	// program; empty runs it in the workspace on the host, with the
	// operator's own environment (as the studio's own terminals do).
	Session string
	// Argv is the program and its arguments; empty starts the
	// environment's shell.
	Argv []string
	// Size is the pty's initial size.
	Size terminal.Size
	// Name is what a client shows the terminal as ("shell", "shell ·
	// fix the parser"): a studio that attaches to it again after a restart
	// labels its tab with it.
	Name string
}

// TerminalInfo describes a terminal.
type TerminalInfo struct {
	ID      string
	Session string // "" for the workspace on the host
	Name    string
	Argv    []string
	Size    terminal.Size
	Started time.Time
	// Running is true until the program ends; then ExitCode is its exit
	// status (128 plus the signal number when a signal ended it) and
	// Error, when set, says why the status could not be known.
	Running  bool
	ExitCode int
	Error    string
	// Clients is how many clients are attached.
	Clients int
}

// terminals is the engine's registry of terminals (Engine.terms).
type terminals struct {
	mu     sync.Mutex
	closed bool
	byID   map[string]*Terminal
	// host runs the workspace's own terminals, made on first use.
	host *terminal.Local
	// opening counts OpenTerminal calls between their check of closed
	// and their registration, so close waits for them and kills what
	// they started.
	opening sync.WaitGroup
}

// OpenTerminal starts a program on a pty in the workspace or in a
// session's environment (making the environment if the session has none
// yet) and keeps it until CloseTerminal or the engine's Close.
func (e *Engine) OpenTerminal(o TerminalOptions) (*Terminal, error) {
	if !o.Size.Valid() {
		return nil, fmt.Errorf("open terminal: %w: size %dx%d", terminal.ErrBadRequest, o.Size.Cols, o.Size.Rows)
	}
	ts := &e.terms
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return nil, fmt.Errorf("open terminal: %w", ErrClosed)
	}
	ts.opening.Add(1)
	ts.mu.Unlock()
	defer ts.opening.Done()

	env, session, err := e.terminalEnv(o.Session)
	if err != nil {
		return nil, fmt.Errorf("open terminal: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := env.Shell(ctx, o.Size, o.Argv)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("open terminal: %w", err)
	}
	t := &Terminal{
		id: newTerminalID(), session: session, name: o.Name, argv: slices.Clone(o.Argv), started: e.opts.Now(),
		pty: p, cancel: cancel, size: o.Size, done: make(chan struct{}),
		out: newFanout(TerminalScrollback, terminalClientQueue),
	}
	go t.pump()

	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return nil, errors.Join(fmt.Errorf("open terminal: %w", ErrClosed), t.kill())
	}
	if ts.byID == nil {
		ts.byID = map[string]*Terminal{}
	}
	ts.byID[t.id] = t
	ts.pruneLocked()
	ts.mu.Unlock()
	return t, nil
}

// terminalEnv returns where a terminal of session runs, and the session's
// full id.
func (e *Engine) terminalEnv(session string) (terminal.Env, string, error) {
	if session != "" {
		rec, err := e.Session(session)
		if err != nil {
			return nil, "", err
		}
		env, err := e.SessionEnv(rec.ID)
		return env, rec.ID, err
	}
	ts := &e.terms
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.host == nil {
		// The operator's own terminal: their whole environment, as the
		// studio gives its host terminals.
		host, err := terminal.NewLocal(terminal.LocalConfig{Workspace: e.store.Workspace(), BaseEnv: os.Environ()})
		if err != nil {
			return nil, "", err
		}
		ts.host = host
	}
	return ts.host, "", nil
}

// pruneLocked forgets the oldest ended terminals beyond keptExited.
func (ts *terminals) pruneLocked() {
	var ended []*Terminal
	for _, t := range ts.byID {
		if t.exited() {
			ended = append(ended, t)
		}
	}
	if len(ended) <= keptExited {
		return
	}
	slices.SortFunc(ended, func(a, b *Terminal) int { return a.started.Compare(b.started) })
	for _, t := range ended[:len(ended)-keptExited] {
		delete(ts.byID, t.id)
	}
}

// Terminal returns a terminal by id.
func (e *Engine) Terminal(id string) (*Terminal, error) {
	ts := &e.terms
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return nil, fmt.Errorf("terminal %s: %w", id, ErrClosed)
	}
	t, ok := ts.byID[id]
	if !ok {
		return nil, fmt.Errorf("terminal %q: %w", id, ErrUnknownTerminal)
	}
	return t, nil
}

// Terminals describes every terminal, oldest first, ended ones included
// until they are closed.
func (e *Engine) Terminals() ([]TerminalInfo, error) {
	ts := &e.terms
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return nil, fmt.Errorf("list terminals: %w", ErrClosed)
	}
	list := make([]*Terminal, 0, len(ts.byID))
	for _, t := range ts.byID {
		list = append(list, t)
	}
	ts.mu.Unlock()
	out := make([]TerminalInfo, 0, len(list))
	for _, t := range list {
		out = append(out, t.Info())
	}
	slices.SortFunc(out, func(a, b TerminalInfo) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// CloseTerminal kills a terminal's program (if it still runs), waits for
// it to end, and forgets the terminal. Attached clients see their streams
// end.
func (e *Engine) CloseTerminal(id string) error {
	ts := &e.terms
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return fmt.Errorf("close terminal %s: %w", id, ErrClosed)
	}
	t, ok := ts.byID[id]
	delete(ts.byID, id)
	ts.mu.Unlock()
	if !ok {
		return fmt.Errorf("close terminal %q: %w", id, ErrUnknownTerminal)
	}
	if err := t.kill(); err != nil {
		return fmt.Errorf("close terminal %s: %w", id, err)
	}
	return nil
}

// close ends every terminal and waits for their pumps, then releases the
// host environment; later calls fail with ErrClosed. The engine's Close
// calls it before it releases the sessions' environments.
func (ts *terminals) close() error {
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return nil
	}
	ts.closed = true
	ts.mu.Unlock()
	// Opens in flight register (and are killed below) or kill what they
	// started themselves once they see closed.
	ts.opening.Wait()
	ts.mu.Lock()
	list := ts.byID
	ts.byID = nil
	host := ts.host
	ts.host = nil
	ts.mu.Unlock()
	var errs []error
	for _, t := range list {
		errs = append(errs, t.kill())
	}
	if host != nil {
		errs = append(errs, host.Close())
	}
	return errors.Join(errs...)
}

func newTerminalID() string {
	var b [8]byte
	// crypto/rand.Read never fails (it panics where no source exists).
	_, _ = rand.Read(b[:])
	return "t" + hex.EncodeToString(b[:])
}

// Terminal is a program on a pty that the engine owns. Its methods are
// safe for concurrent use.
type Terminal struct {
	id      string
	session string
	name    string
	argv    []string
	started time.Time
	pty     terminal.PTY
	cancel  context.CancelFunc
	out     *fanout
	done    chan struct{} // closed when the pump has ended

	in sync.Mutex // one input write at a time, so frames do not interleave

	mu      sync.Mutex
	size    terminal.Size
	ended   bool
	code    int
	waitErr error
}

// ID returns the terminal's id.
func (t *Terminal) ID() string { return t.id }

// Done is closed once the program has ended and all its output has been
// handed to the clients.
func (t *Terminal) Done() <-chan struct{} { return t.done }

// Info describes the terminal now.
func (t *Terminal) Info() TerminalInfo {
	t.mu.Lock()
	info := TerminalInfo{ID: t.id, Session: t.session, Name: t.name, Argv: slices.Clone(t.argv), Size: t.size,
		Started: t.started, Running: !t.ended, ExitCode: t.code}
	if t.waitErr != nil {
		info.Error = t.waitErr.Error()
	}
	t.mu.Unlock()
	info.Clients = t.out.clientCount()
	return info
}

func (t *Terminal) exited() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ended
}

// Attach adds a client: its stream starts with the scrollback and goes on
// with the output from then on, nothing lost or repeated in between.
func (t *Terminal) Attach() *TerminalClient { return t.out.attach() }

// Write types p into the program.
func (t *Terminal) Write(p []byte) (int, error) {
	if t.exited() {
		return 0, fmt.Errorf("terminal %s: %w", t.id, ErrTerminalExited)
	}
	t.in.Lock()
	defer t.in.Unlock()
	n, err := t.pty.Write(p)
	if err != nil {
		if t.exited() {
			return n, fmt.Errorf("terminal %s: %w", t.id, ErrTerminalExited)
		}
		return n, fmt.Errorf("terminal %s: input: %w", t.id, err)
	}
	return n, nil
}

// Resize tells the program the terminal's new size.
func (t *Terminal) Resize(size terminal.Size) error {
	if !size.Valid() {
		return fmt.Errorf("resize terminal %s: %w: size %dx%d", t.id, terminal.ErrBadRequest, size.Cols, size.Rows)
	}
	if t.exited() {
		return fmt.Errorf("resize terminal %s: %w", t.id, ErrTerminalExited)
	}
	// Not under t.mu: a container's resize is a call to its engine.
	if err := t.pty.Resize(size); err != nil {
		if t.exited() {
			return fmt.Errorf("resize terminal %s: %w", t.id, ErrTerminalExited)
		}
		return fmt.Errorf("resize terminal %s: %w", t.id, err)
	}
	t.mu.Lock()
	t.size = size
	t.mu.Unlock()
	return nil
}

// kill hangs up the program and waits for the pump to end.
func (t *Terminal) kill() error {
	t.cancel()
	err := t.pty.Close()
	<-t.done
	return err
}

// pump copies the pty's output to the fan-out until the program is gone,
// then records its exit status before it ends the clients' streams, so a
// client that sees its stream end finds the status in Info.
func (t *Terminal) pump() {
	defer close(t.done)
	buf := make([]byte, terminalChunk)
	for {
		n, err := t.pty.Read(buf)
		if n > 0 {
			t.out.write(buf[:n])
		}
		if err != nil {
			break
		}
	}
	code, err := t.pty.Wait()
	t.mu.Lock()
	t.ended, t.code, t.waitErr = true, code, err
	t.mu.Unlock()
	t.out.end()
	t.cancel()
	// The program is gone: this only releases the pty. A failure to
	// release it has no one to be reported to but the exit status.
	if cerr := t.pty.Close(); cerr != nil && err == nil {
		t.mu.Lock()
		t.waitErr = fmt.Errorf("release the pty: %w", cerr)
		t.mu.Unlock()
	}
}
