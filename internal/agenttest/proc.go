// Package agenttest is the test rig of the agent-program adapters
// (harness/claude, harness/codex, harness/acp): a fake process whose other
// end the test plays, and a harness.Host that records what the adapter
// asked of it. Each adapter's tests used to write both for themselves.
package agenttest

import (
	"errors"
	"io"
	"sync"
)

// ErrExited is what a write to a fake process's stdin returns once it
// exited, as a real pipe fails.
var ErrExited = errors.New("process exited")

// Proc is a terminal.Process made of pipes: the adapter writes Stdin and
// reads Stdout and Stderr; the test reads what it wrote from InR and plays
// the program's output on OutW and ErrW.
type Proc struct {
	// InR is what the adapter writes to the process's stdin.
	InR *io.PipeReader
	// OutW and ErrW are the process's stdout and stderr.
	OutW, ErrW *io.PipeWriter

	inW        *io.PipeWriter
	outR, errR *io.PipeReader

	once sync.Once
	done chan struct{}
	code int
}

// NewProc returns a running fake process.
func NewProc() *Proc {
	p := &Proc{done: make(chan struct{})}
	p.InR, p.inW = io.Pipe()
	p.outR, p.OutW = io.Pipe()
	p.errR, p.ErrW = io.Pipe()
	return p
}

func (p *Proc) Stdin() io.WriteCloser { return p.inW }
func (p *Proc) Stdout() io.Reader     { return p.outR }
func (p *Proc) Stderr() io.Reader     { return p.errR }
func (p *Proc) Wait() (int, error)    { <-p.done; return p.code, nil }

// Kill ends the process as a SIGKILL does: exit code 137.
func (p *Proc) Kill() error { p.Exit(137); return nil }

// Exit ends the process with code, once: its output ends and its input
// fails, as a real process's pipes do. Later calls change nothing.
func (p *Proc) Exit(code int) {
	p.once.Do(func() {
		p.code = code
		_ = p.OutW.Close() // a pipe's Close never fails
		_ = p.ErrW.Close() // a pipe's Close never fails
		p.InR.CloseWithError(ErrExited)
		close(p.done)
	})
}

// Done is closed when the process exited.
func (p *Proc) Done() <-chan struct{} { return p.done }
