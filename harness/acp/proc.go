package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/procpool"
	"github.com/atelier-studio/atelier/terminal"
)

// exitGrace is how long the adapter waits for an agent that closed its
// output to exit, or for one asked to end to do so.
const exitGrace = 2 * time.Second

// tailGrace is how long the adapter waits, once the process exited, for
// the rest of its stderr (harness.Tail.Settle).
const tailGrace = 500 * time.Millisecond

// proc is one agent process, its connection and its ACP session.
type proc struct {
	p      terminal.Process
	conn   *acpsdk.ClientSideConnection
	cl     *client
	filter *lineFilter
	stderr *harness.Tail
	life   context.Context // the process's lifetime
	cancel context.CancelFunc
	exited chan struct{}
	code   int
	killed atomic.Bool

	caps    acpsdk.AgentCapabilities
	turnMu  sync.Mutex // one turn at a time
	session acpsdk.SessionId
}

// start spawns the agent and does the initialize handshake.
func (a *Agent) start(ctx context.Context, host harness.Host) (*proc, error) {
	if len(a.s.Command) == 0 || a.s.Command[0] == "" {
		return nil, fmt.Errorf("start acp agent: %w", ErrNoCommand)
	}
	life, cancel := context.WithCancel(context.Background())
	tp, err := host.Spawn(life, a.s.Command, a.s.Env)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("start %s: %w", a.s.Command[0], err)
	}
	p := &proc{p: tp, cl: newClient(), stderr: &harness.Tail{}, life: life, cancel: cancel, exited: make(chan struct{})}
	go p.stderr.Drain(tp.Stderr())
	go func() {
		p.code, _ = tp.Wait()
		close(p.exited)
	}()
	p.filter = newLineFilter(tp.Stdout())
	p.conn = acpsdk.NewClientSideConnection(p.cl, tp.Stdin(), p.filter.Reader())
	// The SDK logs to slog's default, which would draw over the studio.
	p.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))

	hctx, hcancel := context.WithTimeout(ctx, a.startTimeout())
	defer hcancel()
	title := "Atelier"
	res, err := p.conn.Initialize(hctx, acpsdk.InitializeRequest{
		ProtocolVersion: acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{
			Fs:       acpsdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
			Terminal: true,
		},
		ClientInfo: &acpsdk.Implementation{Name: "atelier", Title: &title, Version: "1"},
	})
	if err != nil {
		err = p.explain(fmt.Errorf("acp initialize: %w", err))
		p.kill()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	p.caps = res.AgentCapabilities
	return p, nil
}

// dead reports whether the connection ended (the agent exited, closed its
// output or broke the protocol).
func (p *proc) dead() bool {
	if p.killed.Load() {
		return true
	}
	select {
	case <-p.conn.Done():
		return true
	case <-p.exited:
		return true
	default:
		return false
	}
}

// explain adds what the agent left behind to err: the protocol error that
// ended the stream, its exit code, the tail of its stderr.
func (p *proc) explain(err error) error {
	if perr := p.filter.Err(); perr != nil {
		err = fmt.Errorf("%w: %w", err, perr)
	} else if p.dead() {
		select {
		case <-p.exited:
		case <-time.After(exitGrace):
		}
		err = fmt.Errorf("%w: %w", ErrExited, err)
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

func (p *proc) kill() {
	p.killed.Store(true)
	_ = p.p.Kill()
	p.cancel()
}

// close ends the agent gently: end of input, then a kill if it lingers.
func (p *proc) close() {
	p.cl.terms.closeAll()
	_ = p.p.Stdin().Close()
	select {
	case <-p.exited:
	case <-time.After(exitGrace):
	}
	p.kill()
}

// session returns the session's live agent, starting one if it has none or
// its last one died. Callers for one session share one start.
func (a *Agent) session(ctx context.Context, id string, host harness.Host) (*proc, error) {
	p, err := a.procs.Get(ctx, id, func(ctx context.Context) (*proc, error) { return a.start(ctx, host) })
	if errors.Is(err, procpool.ErrClosed) {
		return nil, fmt.Errorf("acp session %s: %w", id, err)
	}
	return p, err
}

// drop forgets a session's agent and kills it.
func (a *Agent) drop(id string, p *proc) {
	a.procs.Remove(id, p)
	p.kill()
}
