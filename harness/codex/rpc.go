package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// maxLine bounds one JSON-RPC line (a command's aggregated output can be
// large; beyond this the stream is treated as broken).
const maxLine = 64 << 20

// message is one JSON-RPC line of app-server: a request (id and method), a
// notification (method only) or a response (id with result or error).
// App-server leaves out the "jsonrpc" member.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

func (m message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// decodeMessage parses and checks one line.
func decodeMessage(line []byte) (message, error) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return message{}, fmt.Errorf("%w: not a JSON-RPC message: %w: %s", ErrProtocol, err, snippet(line))
	}
	if len(m.ID) > 0 {
		if _, err := idKey(m.ID); err != nil {
			return message{}, fmt.Errorf("%w: %w: %s", ErrProtocol, err, snippet(line))
		}
	}
	switch {
	case m.Method == "" && len(m.ID) == 0:
		return message{}, fmt.Errorf("%w: message with neither method nor id: %s", ErrProtocol, snippet(line))
	case m.Method == "" && m.Result == nil && m.Error == nil:
		return message{}, fmt.Errorf("%w: response with neither result nor error: %s", ErrProtocol, snippet(line))
	}
	return m, nil
}

// idKey is a request id in a canonical form: a number or a JSON string.
func idKey(id json.RawMessage) (string, error) {
	id = bytes.TrimSpace(id)
	var n json.Number
	if err := json.Unmarshal(id, &n); err == nil && n != "" {
		if i, err := n.Int64(); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		return n.String(), nil
	}
	var s string
	if err := json.Unmarshal(id, &s); err == nil {
		return strconv.Quote(s), nil
	}
	return "", fmt.Errorf("request id %s is neither a number nor a string", snippet(id))
}

func snippet(b []byte) string {
	const n = 200
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}

// conn is the JSON-RPC connection to one app-server process. A reader
// goroutine routes responses to their callers and queues the server's
// notifications and requests, in order, for the turn that reads them; the
// queue is unbounded so the reader never blocks the CLI.
type conn struct {
	w   io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	pending map[string]chan message
	queue   []message
	signal  chan struct{}
	done    chan struct{}
	err     error // why the connection ended; set before done closes
}

func newConn(r io.Reader, w io.Writer) *conn {
	c := &conn{w: w, pending: map[string]chan message{}, signal: make(chan struct{}, 1), done: make(chan struct{})}
	go c.read(r)
	return c
}

func (c *conn) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		m, err := decodeMessage(line)
		if err != nil {
			c.fail(err)
			go func() { _, _ = io.Copy(io.Discard, r) }() // keep the CLI from blocking on a full pipe
			return
		}
		c.route(m)
	}
	err := sc.Err()
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		err = fmt.Errorf("%w: a line longer than %d bytes", ErrProtocol, maxLine)
		go func() { _, _ = io.Copy(io.Discard, r) }()
	case err == nil:
		err = io.EOF
	}
	c.fail(err)
}

func (c *conn) route(m message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.Method == "" {
		k, _ := idKey(m.ID)
		if ch, ok := c.pending[k]; ok {
			delete(c.pending, k)
			ch <- m
		}
		return
	}
	c.queue = append(c.queue, m)
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// fail ends the connection with err (the first reason wins).
func (c *conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.done:
		return
	default:
	}
	c.err = err
	close(c.done)
}

// cause is why the connection ended, nil while it lives.
func (c *conn) cause() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

func (c *conn) write(m message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode %s: %w", m.Method, err)
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(b); err != nil {
		return fmt.Errorf("write to codex: %w", err)
	}
	return nil
}

// call sends a request and waits for its answer, ctx, or the end of the
// connection; result may be nil. An answer already received wins over ctx
// and over the end of the connection.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encode: %w", method, err)
	}
	ch := make(chan message, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	k := strconv.FormatInt(id, 10)
	c.pending[k] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, k)
		c.mu.Unlock()
	}
	if err := c.write(message{ID: json.RawMessage(k), Method: method, Params: p}); err != nil {
		forget()
		return fmt.Errorf("%s: %w", method, err)
	}
	var end error
	select {
	case m := <-ch:
		return decodeAnswer(method, m, result)
	case <-ctx.Done():
		end = ctx.Err()
	case <-c.done:
		end = c.err
	}
	// An answer that came before we gave up is the outcome (select picks
	// at random among ready cases): dropping it would forget, say, that
	// a turn started and what its id is. Once forgotten, none can come.
	forget()
	select {
	case m := <-ch:
		return decodeAnswer(method, m, result)
	default:
		return fmt.Errorf("%s: %w", method, end)
	}
}

// decodeAnswer decodes the answer m to a call of method into result (may be nil).
func decodeAnswer(method string, m message, result any) error {
	if m.Error != nil {
		return fmt.Errorf("%s: %w: %w", method, ErrRPC, m.Error)
	}
	if result != nil {
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("%s: %w: answer does not decode: %w", method, ErrProtocol, err)
		}
	}
	return nil
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	m := message{Method: method}
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("%s: encode: %w", method, err)
		}
		m.Params = p
	}
	return c.write(m)
}

// respond answers a server request.
func (c *conn) respond(id json.RawMessage, result any) error {
	r, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	return c.write(message{ID: id, Result: r})
}

// refuse answers a server request with a JSON-RPC error.
func (c *conn) refuse(id json.RawMessage, code int, text string) error {
	return c.write(message{ID: id, Error: &rpcError{Code: code, Message: text}})
}

// next returns the next queued notification or server request.
func (c *conn) next(ctx context.Context) (message, error) {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue[0] = message{}
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return m, nil
		}
		c.mu.Unlock()
		select {
		case <-c.signal:
		case <-ctx.Done():
			return message{}, ctx.Err()
		case <-c.done:
			// Hand out what came before the end first.
			c.mu.Lock()
			n := len(c.queue)
			c.mu.Unlock()
			if n == 0 {
				return message{}, c.err
			}
		}
	}
}

// clear takes what is queued from before a turn and returns its
// notifications, refusing stale requests so the CLI does not wait on them.
func (c *conn) clear() []message {
	c.mu.Lock()
	q := c.queue
	c.queue = nil
	c.mu.Unlock()
	var notes []message
	for _, m := range q {
		if m.isRequest() {
			_ = c.refuse(m.ID, -32000, "no turn is running")
		} else {
			notes = append(notes, m)
		}
	}
	return notes
}

// bound returns ctx ended also by the end of the connection, so a wait on
// the operator does not outlive the CLI.
func (c *conn) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-c.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
