package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/atelier-studio/atelier/sessions"
)

// Options configure a Client. Zero values take the defaults.
type Options struct {
	// Token is sent as a bearer token (TCP servers require one).
	Token string
	// Label names the client in the controls it sends ("studio", "cli",
	// "mcp"...); the server records it. Empty sends none.
	Label string
	// HTTPClient replaces the default transport (tests).
	HTTPClient *http.Client
}

// Client talks to one engine host. It is safe for concurrent use.
type Client struct {
	base string // scheme://host, no trailing slash
	hc   *http.Client
	opts Options
}

// New returns a client of the engine served at addr: a unix socket path
// (absolute, or "unix:PATH"), or an http:// or https:// base URL.
func New(addr string, opts Options) (*Client, error) {
	c := &Client{opts: opts, hc: opts.HTTPClient}
	switch {
	case strings.HasPrefix(addr, "http://"), strings.HasPrefix(addr, "https://"):
		u, err := url.Parse(addr)
		if err != nil {
			return nil, fmt.Errorf("engine address %q: %w", addr, err)
		}
		c.base = strings.TrimSuffix(u.Scheme+"://"+u.Host+u.Path, "/")
		if c.hc == nil {
			c.hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		}
	case strings.HasPrefix(addr, "unix:"), strings.HasPrefix(addr, "/"):
		path := strings.TrimPrefix(addr, "unix:")
		c.base = "http://atelier"
		if c.hc == nil {
			var d net.Dialer
			tr := &http.Transport{
				DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
					return d.DialContext(ctx, "unix", path)
				},
				MaxIdleConnsPerHost: 16,
			}
			c.hc = &http.Client{Transport: tr}
		}
	default:
		return nil, fmt.Errorf("engine address %q: want a unix socket path or an http(s) URL", addr)
	}
	return c, nil
}

// CloseIdle closes the client's idle connections.
func (c *Client) CloseIdle() { c.hc.CloseIdleConnections() }

func (c *Client) newRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
	if c.opts.Label != "" {
		req.Header.Set("Atelier-Client", c.opts.Label)
	}
	return req, nil
}

// do sends a request and decodes a JSON answer into out (nil discards it);
// an error status is returned as a *Problem.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	req, err := c.newRequest(ctx, method, path, body)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }() // a read error below says what went wrong
	if resp.StatusCode >= 300 {
		return readProblem(resp)
	}
	if out == nil {
		_, err := io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode the answer: %w", method, path, err)
	}
	return nil
}

// readProblem decodes an error answer; one that is not problem details
// still becomes a Problem with the status.
func readProblem(resp *http.Response) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	p := &Problem{Status: resp.StatusCode, Title: http.StatusText(resp.StatusCode)}
	if err == nil && json.Unmarshal(b, p) == nil && p.Code != "" {
		p.Status = resp.StatusCode
		return p
	}
	p.Code = "http_" + strconv.Itoa(resp.StatusCode)
	p.Detail = strings.TrimSpace(string(b))
	return p
}

func sessionPath(id string, rest ...string) string {
	p := "/v1/sessions/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// Health reports the host's health.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	return h, c.do(ctx, http.MethodGet, "/v1/health", nil, &h)
}

// Version reports the host's build and API version.
func (c *Client) Version(ctx context.Context) (Version, error) {
	var v Version
	return v, c.do(ctx, http.MethodGet, "/v1/version", nil, &v)
}

// Sessions lists the sessions, oldest first; archived ones only when asked.
func (c *Client) Sessions(ctx context.Context, archived bool) ([]sessions.Session, error) {
	var out []sessions.Session
	path := "/v1/sessions"
	if archived {
		path += "?archived=true"
	}
	return out, c.do(ctx, http.MethodGet, path, nil, &out)
}

// Session returns one session's record.
func (c *Client) Session(ctx context.Context, id string) (sessions.Session, error) {
	var s sessions.Session
	return s, c.do(ctx, http.MethodGet, sessionPath(id), nil, &s)
}

// Create makes a session; a repeated Key returns the session it created.
func (c *Client) Create(ctx context.Context, r CreateRequest) (sessions.Session, error) {
	var s sessions.Session
	return s, c.do(ctx, http.MethodPost, "/v1/sessions", r, &s)
}

// Control sends a control without a body: start, pause, resume, stop,
// cancel, close, nudge, archive, unarchive, delete, compact, clear.
func (c *Client) Control(ctx context.Context, id, action string) (Receipt, error) {
	var rc Receipt
	return rc, c.do(ctx, http.MethodPost, sessionPath(id, action), nil, &rc)
}

// Start starts a CREATED session.
func (c *Client) Start(ctx context.Context, id string) (Receipt, error) {
	return c.Control(ctx, id, "start")
}

// Pause holds a running session at its next boundary.
func (c *Client) Pause(ctx context.Context, id string) (Receipt, error) {
	return c.Control(ctx, id, "pause")
}

// Resume continues a paused session (or starts a created one).
func (c *Client) Resume(ctx context.Context, id string) (Receipt, error) {
	return c.Control(ctx, id, "resume")
}

// Stop interrupts the turn in flight; the session then waits for input.
func (c *Client) Stop(ctx context.Context, id string) (Receipt, error) {
	return c.Control(ctx, id, "stop")
}

// Cancel ends a session. It cannot be undone.
func (c *Client) Cancel(ctx context.Context, id string) (Receipt, error) {
	return c.Control(ctx, id, "cancel")
}

// Close ends a session that waits between turns.
func (c *Client) Close(ctx context.Context, id string) (Receipt, error) {
	return c.Control(ctx, id, "close")
}

// Send gives a session a prompt; a non-empty key makes it idempotent (a
// repeat answers with Receipt.Key set).
func (c *Client) Send(ctx context.Context, id, text, key string) (Receipt, error) {
	return c.Input(ctx, id, false, InputRequest{Text: text, Key: key})
}

// Input sends a prompt (or, with steer, a steer) with every field of the
// request, the client's variables included.
func (c *Client) Input(ctx context.Context, id string, steer bool, r InputRequest) (Receipt, error) {
	action := "send"
	if steer {
		action = "steer"
	}
	var rc Receipt
	return rc, c.do(ctx, http.MethodPost, sessionPath(id, action), r, &rc)
}

// Steer adds an instruction to a running turn (or the next input of a
// waiting session); a non-empty key makes it idempotent.
func (c *Client) Steer(ctx context.Context, id, text, key string) (Receipt, error) {
	return c.Input(ctx, id, true, InputRequest{Text: text, Key: key})
}

// SetModel queues a model change.
func (c *Client) SetModel(ctx context.Context, id, model string) (Receipt, error) {
	var rc Receipt
	return rc, c.do(ctx, http.MethodPost, sessionPath(id, "model"), ModelRequest{Model: model}, &rc)
}

// SetApproval queues an approval-policy change (ask, auto, read-only).
func (c *Client) SetApproval(ctx context.Context, id, policy string) (Receipt, error) {
	var rc Receipt
	return rc, c.do(ctx, http.MethodPost, sessionPath(id, "approval"), ApprovalRequest{Policy: policy}, &rc)
}

// Fork copies a session's history up to message upTo ("" all) into a new
// CREATED session and returns it.
func (c *Client) Fork(ctx context.Context, id, upTo, title string) (sessions.Session, error) {
	var s sessions.Session
	return s, c.do(ctx, http.MethodPost, sessionPath(id, "fork"), ForkRequest{UpTo: upTo, Title: title}, &s)
}

// Queue lists a session's pending inputs, in order.
func (c *Client) Queue(ctx context.Context, id string) ([]sessions.Control, error) {
	var out []sessions.Control
	return out, c.do(ctx, http.MethodGet, sessionPath(id, "queue"), nil, &out)
}

// RemoveQueued takes a pending input out of the queue.
func (c *Client) RemoveQueued(ctx context.Context, id, item string) error {
	return c.do(ctx, http.MethodDelete, sessionPath(id, "queue", item), nil, nil)
}

// MoveQueued moves a pending input to position to (0 is next).
func (c *Client) MoveQueued(ctx context.Context, id, item string, to int) error {
	return c.do(ctx, http.MethodPost, sessionPath(id, "queue", item, "move"), MoveRequest{To: to}, nil)
}

// EditQueued replaces the text of a pending prompt or steer; it keeps its
// place and its key.
func (c *Client) EditQueued(ctx context.Context, id, item, text string) error {
	return c.do(ctx, http.MethodPost, sessionPath(id, "queue", item, "edit"), EditRequest{Text: text}, nil)
}

// Keys lists a session's idempotency keys, oldest first.
func (c *Client) Keys(ctx context.Context, id string) ([]sessions.KeyRecord, error) {
	var out []sessions.KeyRecord
	return out, c.do(ctx, http.MethodGet, sessionPath(id, "keys"), nil, &out)
}

// ForgetKey frees an uncertain key.
func (c *Client) ForgetKey(ctx context.Context, id, key string) error {
	return c.do(ctx, http.MethodDelete, sessionPath(id, "keys", key), nil, nil)
}

// Actions is the workspace's Action required set, newest first.
func (c *Client) Actions(ctx context.Context) ([]ActionItem, error) {
	var out []ActionItem
	return out, c.do(ctx, http.MethodGet, "/v1/actions", nil, &out)
}

// Interactions lists the open interactions, of one session when session
// is not empty.
func (c *Client) Interactions(ctx context.Context, session string) ([]Interaction, error) {
	var out []Interaction
	path := "/v1/interactions"
	if session != "" {
		path += "?session=" + url.QueryEscape(session)
	}
	return out, c.do(ctx, http.MethodGet, path, nil, &out)
}

// Respond answers an open interaction of a session.
func (c *Client) Respond(ctx context.Context, session, interaction string, r Response) error {
	return c.do(ctx, http.MethodPost, sessionPath(session, "interactions", interaction), r, nil)
}

// Messages returns a page of a session's transcript: the newest limit
// messages (0: the server's default), or those before message before.
func (c *Client) Messages(ctx context.Context, id string, limit int, before string) (MessagePage, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if before != "" {
		q.Set("before", before)
	}
	path := sessionPath(id, "messages")
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var p MessagePage
	return p, c.do(ctx, http.MethodGet, path, nil, &p)
}

// Exec runs a command in a session's execution environment of the
// workspace itself (instance "main").
func (c *Client) Exec(ctx context.Context, r ExecRequest) (ExecResult, error) {
	var res ExecResult
	return res, c.do(ctx, http.MethodPost, "/v1/instances/main/exec", r, &res)
}

// IsCode reports whether err is a Problem with the code.
func IsCode(err error, code string) bool {
	var p *Problem
	return errors.As(err, &p) && p.Code == code
}

// OpenAPI returns the host's OpenAPI document (GET /openapi.json), for a
// tool that checks or generates against the API the host really serves.
func (c *Client) OpenAPI(ctx context.Context) (json.RawMessage, error) {
	var doc json.RawMessage
	err := c.do(ctx, http.MethodGet, "/openapi.json", nil, &doc)
	return doc, err
}
