package core

import (
	"context"
	"io"
	"slices"
	"sync"
)

// The output side of a terminal: the fan-out that hands each piece of the
// program's output to the scrollback and to every attached client's
// bounded queue, and the clients' streams (see terminals.go for the
// registry and the program).

// fanout keeps a terminal's scrollback and hands each piece of output to
// every attached client's queue, without ever waiting for a client.
type fanout struct {
	mu      sync.Mutex
	ring    scrollback
	limit   int // bytes a client may have queued
	clients map[*TerminalClient]struct{}
	ended   bool
}

func newFanout(scroll, limit int) *fanout {
	return &fanout{ring: scrollback{buf: make([]byte, scroll)}, limit: limit, clients: map[*TerminalClient]struct{}{}}
}

// write records p and queues it for every client; a client whose queue
// would pass the limit is dropped instead.
func (f *fanout) write(p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ring.write(p)
	var piece []byte // one copy, shared: queued pieces are never modified
	for c := range f.clients {
		if c.queued+len(p) > f.limit {
			delete(f.clients, c)
			c.dropped, c.queue, c.queued = true, nil, 0
			close(c.gone)
			c.signal()
			continue
		}
		if piece == nil {
			piece = slices.Clone(p)
		}
		c.queue = append(c.queue, piece)
		c.queued += len(piece)
		c.signal()
	}
}

// end says the output is over: streams end once their queues are taken.
func (f *fanout) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ended = true
	for c := range f.clients {
		c.signal()
	}
}

func (f *fanout) attach() *TerminalClient {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := &TerminalClient{f: f, wake: make(chan struct{}, 1), gone: make(chan struct{})}
	if b := f.ring.bytes(); len(b) > 0 {
		c.queue, c.queued = [][]byte{b}, len(b)
	}
	if !f.ended {
		f.clients[c] = struct{}{}
	}
	return c
}

func (f *fanout) clientCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.clients)
}

// TerminalClient is one attached client's stream of a terminal's output.
// One goroutine at a time calls Next.
type TerminalClient struct {
	f    *fanout
	wake chan struct{} // holds a token when the state below changed
	gone chan struct{} // closed when dropped or detached

	// Guarded by f.mu.
	queue    [][]byte
	queued   int
	dropped  bool
	detached bool
}

// signal wakes Next; f.mu is held.
func (c *TerminalClient) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Next returns the next piece of output, waiting until there is one or ctx
// ends. It returns io.EOF once the program has ended and every piece was
// taken, ErrTerminalDropped once the client was dropped for falling
// behind, and io.ErrClosedPipe after Detach.
func (c *TerminalClient) Next(ctx context.Context) ([]byte, error) {
	for {
		if p, ok, err := c.take(); ok {
			return p, err
		}
		select {
		case <-c.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// take returns what Next returns now, or ok false when it must wait.
func (c *TerminalClient) take() (p []byte, ok bool, err error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	switch {
	case c.dropped:
		return nil, true, ErrTerminalDropped
	case c.detached:
		return nil, true, io.ErrClosedPipe
	case len(c.queue) > 0:
		p = c.queue[0]
		if len(p) > terminalChunk {
			c.queue[0] = p[terminalChunk:]
			p = p[:terminalChunk]
		} else {
			c.queue[0] = nil
			c.queue = c.queue[1:]
		}
		c.queued -= len(p)
		return p, true, nil
	case c.f.ended:
		return nil, true, io.EOF
	}
	return nil, false, nil
}

// Dropped reports whether the client was dropped for falling behind.
func (c *TerminalClient) Dropped() bool {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return c.dropped
}

// Gone is closed once the client is dropped or detached: a caller blocked
// elsewhere with its output (a network write to a client that stopped
// reading) selects on it to give up.
func (c *TerminalClient) Gone() <-chan struct{} { return c.gone }

// Detach removes the client; its queue is discarded.
func (c *TerminalClient) Detach() {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	if c.dropped || c.detached {
		return
	}
	delete(c.f.clients, c)
	c.detached, c.queue, c.queued = true, nil, 0
	close(c.gone)
	c.signal()
}

// scrollback is a ring of the latest output.
type scrollback struct {
	buf      []byte
	start, n int
	lost     bool // older output was overwritten
}

func (r *scrollback) write(p []byte) {
	size := len(r.buf)
	if len(p) >= size {
		copy(r.buf, p[len(p)-size:])
		r.start, r.n, r.lost = 0, size, true
		return
	}
	end := (r.start + r.n) % size
	k := copy(r.buf[end:], p)
	copy(r.buf, p[k:])
	r.n += len(p)
	if r.n > size {
		r.start = (r.start + r.n - size) % size
		r.n, r.lost = size, true
	}
}

// bytes returns a copy of the ring's content. Once older output was lost
// it starts after the first line break, when there is one, so a client
// does not start in the middle of a line or an escape sequence.
func (r *scrollback) bytes() []byte {
	out := make([]byte, 0, r.n)
	end := r.start + r.n
	if end <= len(r.buf) {
		out = append(out, r.buf[r.start:end]...)
	} else {
		out = append(out, r.buf[r.start:]...)
		out = append(out, r.buf[:end-len(r.buf)]...)
	}
	if r.lost {
		if i := slices.Index(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
	}
	return out
}
