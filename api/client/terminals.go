package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// CodeUnknownTerminal is the problem of a terminal id that names none (it
// never existed, was closed, or the host that owned it is gone): 404. It
// sits here, with the routes' types, rather than in problem.go's list,
// which this work did not own; it is as stable as the others.
const CodeUnknownTerminal = "unknown_terminal"

// Close codes of a terminal's WebSocket, besides the standard ones.
const (
	// CloseExited plus the exit code (clamped to 0..999) closes the
	// stream when the program ends: 4000 for exit 0, 4137 for a program
	// killed by SIGKILL.
	CloseExited = 4000
	// CloseDropped (1013, "try again later") closes the stream of a
	// client that fell further behind the output than the host queues
	// for it; attaching again replays the scrollback.
	CloseDropped = 1013
)

// TerminalRequest is the body of POST /v1/instances/{instance}/terminals:
// a program (the environment's shell without Argv) on a pty of Cols by
// Rows, in a session's execution environment, or in the workspace on the
// host without Session.
type TerminalRequest struct {
	Session string   `json:"session,omitempty"`
	Argv    []string `json:"argv,omitempty"`
	// Name is what clients show it as (a studio's tab label).
	Name string `json:"name,omitempty"`
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
}

// Terminal describes a terminal the host owns.
type Terminal struct {
	ID      string    `json:"id"`
	Session string    `json:"session,omitempty"`
	Name    string    `json:"name,omitempty"`
	Argv    []string  `json:"argv,omitempty"`
	Cols    int       `json:"cols"`
	Rows    int       `json:"rows"`
	Started time.Time `json:"started"`
	// Running is true until the program ends; then ExitCode is its exit
	// status (128 plus the signal number when a signal ended it), and
	// Error says why it could not be known, if it could not.
	Running  bool   `json:"running"`
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error,omitempty"`
	// Clients is how many WebSocket clients are attached.
	Clients int `json:"clients"`
}

// TerminalControl is a text frame a client sends on a terminal's
// WebSocket; binary frames are the program's input.
type TerminalControl struct {
	Resize *TerminalSize `json:"resize,omitempty"`
}

// TerminalSize is a terminal's size in character cells.
type TerminalSize struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

func terminalsPath(rest ...string) string {
	p := "/v1/instances/main/terminals"
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// Terminals lists the workspace's terminals, oldest first; ended ones stay
// until they are closed.
func (c *Client) Terminals(ctx context.Context) ([]Terminal, error) {
	var out []Terminal
	return out, c.do(ctx, http.MethodGet, terminalsPath(), nil, &out)
}

// OpenTerminal starts a terminal the host owns; it runs until it ends or
// is closed, whoever is attached.
func (c *Client) OpenTerminal(ctx context.Context, r TerminalRequest) (Terminal, error) {
	var t Terminal
	return t, c.do(ctx, http.MethodPost, terminalsPath(), r, &t)
}

// Terminal describes one terminal.
func (c *Client) Terminal(ctx context.Context, id string) (Terminal, error) {
	var t Terminal
	return t, c.do(ctx, http.MethodGet, terminalsPath(id), nil, &t)
}

// CloseTerminal kills a terminal's program if it still runs and forgets
// the terminal.
func (c *Client) CloseTerminal(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, terminalsPath(id), nil, nil)
}

// TerminalConn is a client's attachment to a terminal: Read returns the
// program's output (the scrollback first), Write types into it. One
// goroutine at a time may Read; Write, Resize and Close may be called from
// others.
type TerminalConn struct {
	ws  *websocket.Conn
	ctx context.Context // ends with Close

	stop context.CancelFunc
	rest []byte // the part of the last frame Read has not returned yet

	mu      sync.Mutex
	exited  bool
	code    int
	readErr error
}

// maxTerminalFrame bounds one frame read from the host; the host sends
// at most 32 KiB.
const maxTerminalFrame = 1 << 20

// AttachTerminal connects to a terminal's WebSocket. ctx bounds the
// handshake only; Close ends the attachment (the terminal runs on).
func (c *Client) AttachTerminal(ctx context.Context, id string) (*TerminalConn, error) {
	h := http.Header{}
	if c.opts.Token != "" {
		h.Set("Authorization", "Bearer "+c.opts.Token)
	}
	if c.opts.Label != "" {
		h.Set("Atelier-Client", c.opts.Label)
	}
	ws, resp, err := websocket.Dial(ctx, c.base+terminalsPath(id, "ws"), &websocket.DialOptions{HTTPClient: c.hc, HTTPHeader: h})
	if err != nil {
		if resp != nil && resp.StatusCode >= 300 {
			// Dial keeps the start of the body of a refused handshake.
			return nil, readProblem(resp)
		}
		return nil, fmt.Errorf("attach terminal %s: %w", id, err)
	}
	ws.SetReadLimit(maxTerminalFrame)
	cctx, stop := context.WithCancel(context.Background())
	return &TerminalConn{ws: ws, ctx: cctx, stop: stop}, nil
}

// Read returns the program's output. It returns io.EOF once the program
// ended and all its output was read (ExitCode then has its status), and
// ErrTerminalDropped when the host dropped this client for falling
// behind.
func (t *TerminalConn) Read(p []byte) (int, error) {
	for len(t.rest) == 0 {
		typ, b, err := t.ws.Read(t.ctx)
		if err != nil {
			return 0, t.ended(err)
		}
		if typ == websocket.MessageBinary {
			t.rest = b
		}
	}
	n := copy(p, t.rest)
	t.rest = t.rest[n:]
	return n, nil
}

// ErrTerminalDropped ends the stream of a client the host dropped because
// it fell behind the output; attaching again replays the scrollback.
var ErrTerminalDropped = errors.New("terminal: the host dropped this client: it fell behind the output")

// ended turns the error that ended the WebSocket into Read's error.
func (t *TerminalConn) ended(err error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.readErr != nil {
		return t.readErr
	}
	switch st := websocket.CloseStatus(err); {
	case st >= CloseExited && st < CloseExited+1000:
		t.exited, t.code = true, int(st)-CloseExited
		t.readErr = io.EOF
	case st == CloseDropped:
		t.readErr = ErrTerminalDropped
	case st != -1:
		t.readErr = fmt.Errorf("terminal: the host closed the stream: %w", err)
	case errors.Is(err, io.EOF):
		// Not io.EOF: that says the program ended, and this says only
		// that the connection did, without a close status.
		t.readErr = fmt.Errorf("terminal: the connection to the host ended: %w", io.ErrUnexpectedEOF)
	default:
		t.readErr = fmt.Errorf("terminal: %w", err)
	}
	return t.readErr
}

// ExitCode returns the program's exit status once Read has returned
// io.EOF; ok is false before, or when the stream ended otherwise.
func (t *TerminalConn) ExitCode() (code int, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.code, t.exited
}

// Write types p into the program.
func (t *TerminalConn) Write(p []byte) (int, error) {
	if err := t.ws.Write(t.ctx, websocket.MessageBinary, p); err != nil {
		return 0, fmt.Errorf("terminal input: %w", err)
	}
	return len(p), nil
}

// Resize tells the program the terminal's new size.
func (t *TerminalConn) Resize(cols, rows int) error {
	b, err := json.Marshal(TerminalControl{Resize: &TerminalSize{Cols: cols, Rows: rows}})
	if err != nil {
		return err
	}
	if err := t.ws.Write(t.ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("terminal resize: %w", err)
	}
	return nil
}

// Close detaches: the terminal's program runs on. After the stream ended
// (Read returned an error) it only releases the connection.
func (t *TerminalConn) Close() error {
	defer t.stop()
	t.mu.Lock()
	ended := t.readErr != nil
	t.mu.Unlock()
	var err error
	if ended {
		err = t.ws.CloseNow()
	} else {
		err = t.ws.Close(websocket.StatusNormalClosure, "detached")
	}
	if err == nil || websocket.CloseStatus(err) != -1 || errors.Is(err, net.ErrClosed) {
		// Closed already, or by the host meanwhile (the program ended):
		// the attachment is over either way.
		return nil
	}
	return fmt.Errorf("close terminal attachment: %w", err)
}
