package codex

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/procpool"
	"github.com/atelier-studio/atelier/terminal"
)

// exitGrace is how long the adapter waits for a process that closed its
// output to exit (for its exit code), or for one asked to end to do so.
const exitGrace = 2 * time.Second

// tailGrace is how long the adapter waits, once the process exited, for
// the rest of its stderr (harness.Tail.Settle).
const tailGrace = 500 * time.Millisecond

// proc is one app-server process and the thread it runs.
type proc struct {
	p      terminal.Process
	c      *conn
	stderr *harness.Tail
	cancel context.CancelFunc // kills the process (its Spawn context)
	exited chan struct{}
	code   int // valid once exited is closed

	turnMu sync.Mutex  // one turn at a time
	killed atomic.Bool // kill was called

	mu       sync.Mutex
	threadID string
	active   string // the running turn's id, for steers
}

// start spawns the app-server and does the initialize handshake.
func (a *Agent) start(ctx context.Context, host harness.Host) (*proc, error) {
	argv, err := a.argv()
	if err != nil {
		return nil, fmt.Errorf("start codex: %w", err)
	}
	env, err := a.env()
	if err != nil {
		return nil, fmt.Errorf("start codex: %w", err)
	}
	// The process outlives the turn that starts it: its own context.
	pctx, cancel := context.WithCancel(context.Background())
	tp, err := host.Spawn(pctx, declared.Isolate(argv, env), env)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	p := &proc{p: tp, stderr: &harness.Tail{}, cancel: cancel, exited: make(chan struct{})}
	go p.stderr.Drain(tp.Stderr())
	go func() {
		p.code, _ = tp.Wait()
		close(p.exited)
	}()
	p.c = newConn(tp.Stdout(), tp.Stdin())

	hctx, hcancel := context.WithTimeout(ctx, a.startTimeout())
	defer hcancel()
	var ir initializeResponse
	err = p.c.call(hctx, "initialize", initializeParams{
		ClientInfo: clientInfo{Name: "atelier", Title: "Atelier", Version: "1"},
	}, &ir)
	if err == nil {
		err = p.c.notify("initialized", nil)
	}
	if err != nil {
		err = p.explain(fmt.Errorf("codex initialize: %w", err))
		p.kill()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return p, nil
}

// explain adds what the process left behind to err: its exit code when it
// ended, and the tail of its stderr.
func (p *proc) explain(err error) error {
	if cause := p.c.cause(); cause != nil {
		select {
		case <-p.exited:
		case <-time.After(exitGrace):
		}
		if errors.Is(cause, io.EOF) {
			err = fmt.Errorf("%w: %w", ErrExited, err)
		}
	}
	select {
	case <-p.exited:
		err = fmt.Errorf("%w (exit code %d)", err, p.code)
		p.stderr.Settle(tailGrace)
	default:
	}
	if tail := p.stderr.String(); tail != "" {
		err = fmt.Errorf("%w; stderr: %s", err, tail)
	}
	return err
}

// alive reports whether the process can still take a turn.
func (p *proc) alive() bool {
	if p.killed.Load() {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return p.c.cause() == nil
	}
}

// kill ends the process at once.
func (p *proc) kill() {
	p.killed.Store(true)
	_ = p.p.Kill()
	p.cancel()
}

// close ends the process gently: end of input, then a kill if it lingers.
func (p *proc) close() {
	_ = p.p.Stdin().Close()
	select {
	case <-p.exited:
	case <-time.After(exitGrace):
	}
	p.kill()
}

func (p *proc) thread() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.threadID
}

func (p *proc) setActive(turnID string) {
	p.mu.Lock()
	p.active = turnID
	p.mu.Unlock()
}

// session returns the session's live process, starting one if it has none
// or its last one died. Callers for one session share one start.
func (a *Agent) session(ctx context.Context, id string, host harness.Host) (*proc, error) {
	p, err := a.procs.Get(ctx, id, func(ctx context.Context) (*proc, error) { return a.start(ctx, host) })
	if errors.Is(err, procpool.ErrClosed) {
		return nil, fmt.Errorf("codex session %s: %w", id, err)
	}
	return p, err
}

// drop forgets a session's process and kills it.
func (a *Agent) drop(id string, p *proc) {
	a.procs.Remove(id, p)
	p.kill()
}

// CloseSession implements harness.Closer: it ends the session's process.
func (a *Agent) CloseSession(sessionID string) error {
	if p, ok := a.procs.Take(sessionID); ok {
		p.close()
	}
	return nil
}

// Close ends every session's process at once, as CloseSession does each,
// for an engine shutting down; later turns fail.
func (a *Agent) Close() error {
	a.procs.Close((*proc).close)
	return nil
}

// Steer implements harness.Steerer: the text joins the running turn
// through turn/steer. Without a running turn it fails with ErrNoTurn.
func (a *Agent) Steer(ctx context.Context, sessionID, text string) error {
	p, ok := a.procs.Peek(sessionID)
	if !ok {
		return fmt.Errorf("steer codex: %w", ErrNoTurn)
	}
	p.mu.Lock()
	threadID, turnID := p.threadID, p.active
	p.mu.Unlock()
	if turnID == "" {
		return fmt.Errorf("steer codex: %w", ErrNoTurn)
	}
	err := p.c.call(ctx, "turn/steer", turnSteerParams{ThreadID: threadID, ExpectedTurnID: turnID, Input: textInput(text)}, nil)
	if err != nil {
		return fmt.Errorf("steer codex: %w", err)
	}
	return nil
}
