package docker

import (
	"io"
	"sync"
)

// pipeBuffer bounds how much output a process may write ahead of its reader
// before it blocks, like a kernel pipe's buffer: a caller reading only
// stdout is not stalled by a little logging on stderr.
const pipeBuffer = 256 << 10

// bufPipe is an in-memory pipe with a bounded buffer: writes block only when
// the buffer is full.
type bufPipe struct {
	mu      sync.Mutex
	cond    sync.Cond
	buf     []byte
	werr    error // set when the writer closed: what reads return at the end
	rclosed bool
}

func newBufPipe() *bufPipe {
	p := &bufPipe{}
	p.cond.L = &p.mu
	return p
}

func (p *bufPipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) >= pipeBuffer && !p.rclosed {
		p.cond.Wait()
	}
	if p.rclosed {
		return 0, io.ErrClosedPipe
	}
	p.buf = append(p.buf, b...)
	p.cond.Broadcast()
	return len(b), nil
}

func (p *bufPipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 && p.werr == nil && !p.rclosed {
		p.cond.Wait()
	}
	if p.rclosed {
		return 0, io.ErrClosedPipe
	}
	if len(p.buf) == 0 {
		return 0, p.werr
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	if len(p.buf) == 0 {
		p.buf = nil
	}
	p.cond.Broadcast()
	return n, nil
}

// closeWrite ends the stream: reads return what is buffered, then err (io.EOF
// when nil).
func (p *bufPipe) closeWrite(err error) {
	if err == nil {
		err = io.EOF
	}
	p.mu.Lock()
	if p.werr == nil {
		p.werr = err
	}
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Close is the reader giving up: writes fail from now on.
func (p *bufPipe) Close() error {
	p.mu.Lock()
	p.rclosed = true
	p.buf = nil
	p.cond.Broadcast()
	p.mu.Unlock()
	return nil
}
