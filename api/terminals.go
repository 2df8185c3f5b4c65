package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"

	"github.com/coder/websocket"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/terminal"
)

// Terminals are programs on a pty that the host owns (core/terminals.go);
// clients attach to them over a WebSocket: binary frames carry the
// program's output one way and its input the other, a text frame
// {"resize":{"cols":C,"rows":R}} resizes, and the host closes the stream
// with 4000 plus the exit code when the program ends. A client that falls
// behind the output is dropped (1013) and may attach again; it never holds
// up the program or the other clients.

// maxTerminalInput bounds one frame a client sends: a paste, a resize.
const maxTerminalInput = 1 << 20

// routeTerminals registers the terminals routes (see terminalsOperations for the document).
func (s *Server) routeTerminals() {
	s.handle("GET /v1/instances/{instance}/terminals", s.listTerminals)
	s.handle("POST /v1/instances/{instance}/terminals", s.openTerminal)
	s.handle("GET /v1/instances/{instance}/terminals/{tid}", s.getTerminal)
	s.handle("DELETE /v1/instances/{instance}/terminals/{tid}", s.closeTerminal)
	s.handle("GET /v1/instances/{instance}/terminals/{tid}/ws", s.attachTerminal)
}

// terminalsOperations documents the terminals routes in the OpenAPI document.
func terminalsOperations() []operation {
	const base = "/v1/instances/{instance}/terminals"
	return []operation{
		{method: "GET", path: base, summary: "List the terminals the host owns, oldest first (ended ones until closed)", status: 200, resp: []client.Terminal{}},
		{method: "POST", path: base, summary: "Open a terminal: a program on a pty, in a session's environment or in the workspace", body: client.TerminalRequest{}, status: 201, resp: client.Terminal{},
			problems: codes(client.CodeUnknownSession, client.CodeAmbiguousSession, client.CodeReadOnlySession, client.CodeTransitionRefused)},
		{method: "GET", path: base + "/{tid}", summary: "Describe a terminal (its exit code once it ended)", status: 200, resp: client.Terminal{},
			problems: codes(client.CodeUnknownTerminal)},
		{method: "DELETE", path: base + "/{tid}", summary: "Close a terminal: kill its program and forget it", status: 204,
			problems: codes(client.CodeUnknownTerminal)},
		{method: "GET", path: base + "/{tid}/ws", summary: "Attach over a WebSocket: binary frames are output and input; a text frame {\"resize\":{\"cols\":C,\"rows\":R}} resizes; closed with 4000 plus the exit code, or 1013 for a client that fell behind", status: 101,
			problems: append(codes(client.CodeUnknownTerminal), problemRef{http.StatusUpgradeRequired, client.CodeBadRequest})},
	}
}

// terminalError gives the terminals' own errors their problems; the
// engine's others (unknown session, engine closed...) are mapped as
// everywhere.
func terminalError(err error) error {
	switch {
	case errors.Is(err, core.ErrUnknownTerminal):
		return &problemError{status: http.StatusNotFound, code: client.CodeUnknownTerminal, detail: err.Error()}
	case errors.Is(err, terminal.ErrReadOnlyLocal):
		return &problemError{status: http.StatusConflict, code: client.CodeReadOnlySession, detail: err.Error()}
	case errors.Is(err, terminal.ErrBadRequest):
		return badRequest(err.Error())
	}
	return err
}

// terminalFor returns the terminal the path names.
func (s *Server) terminalFor(r *http.Request) (*core.Terminal, error) {
	if err := checkInstance(r); err != nil {
		return nil, err
	}
	tid, err := pathID(r, "tid")
	if err != nil {
		return nil, err
	}
	t, err := s.eng.Terminal(tid)
	if err != nil {
		return nil, terminalError(err)
	}
	return t, nil
}

func wireTerminal(i core.TerminalInfo) client.Terminal {
	return client.Terminal{ID: i.ID, Session: i.Session, Name: i.Name, Argv: i.Argv, Cols: i.Size.Cols, Rows: i.Size.Rows,
		Started: i.Started, Running: i.Running, ExitCode: i.ExitCode, Error: i.Error, Clients: i.Clients}
}

func (s *Server) listTerminals(w http.ResponseWriter, r *http.Request) error {
	if err := checkInstance(r); err != nil {
		return err
	}
	list, err := s.eng.Terminals()
	if err != nil {
		return terminalError(err)
	}
	out := make([]client.Terminal, 0, len(list))
	for _, i := range list {
		out = append(out, wireTerminal(i))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) openTerminal(w http.ResponseWriter, r *http.Request) error {
	if err := checkInstance(r); err != nil {
		return err
	}
	var req client.TerminalRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.Session != "" && !idPattern.MatchString(req.Session) {
		return badRequest(fmt.Sprintf("session %q is not a valid id", req.Session))
	}
	if len(req.Name) > 200 || strings.ContainsFunc(req.Name, unicode.IsControl) {
		return badRequest("name: at most 200 bytes, no control characters")
	}
	size := terminal.Size{Cols: req.Cols, Rows: req.Rows}
	if !size.Valid() {
		return badRequest(fmt.Sprintf("cols %d, rows %d: want both from 1 to 65535", req.Cols, req.Rows))
	}
	t, err := s.eng.OpenTerminal(core.TerminalOptions{Session: req.Session, Argv: req.Argv, Size: size, Name: req.Name})
	if err != nil {
		return terminalError(err)
	}
	writeJSON(w, http.StatusCreated, wireTerminal(t.Info()))
	return nil
}

func (s *Server) getTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.terminalFor(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wireTerminal(t.Info()))
	return nil
}

func (s *Server) closeTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.terminalFor(r)
	if err != nil {
		return err
	}
	if err := s.eng.CloseTerminal(t.ID()); err != nil {
		return terminalError(err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// attachTerminal upgrades to a WebSocket and streams the terminal. What
// can be refused is refused before the upgrade, as a problem.
func (s *Server) attachTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.terminalFor(r)
	if err != nil {
		return err
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return &problemError{status: http.StatusUpgradeRequired, code: client.CodeBadRequest,
			detail: "this route is a WebSocket: send an upgrade request"}
	}
	// Browsers may attach from the host's own origin only (the library's
	// default), so a page elsewhere cannot drive a terminal.
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return nil // Accept has answered the request itself
	}
	ws.SetReadLimit(maxTerminalInput)
	s.streamTerminal(ws, t)
	return nil
}

// streamTerminal runs one attachment: the output goes out from this
// goroutine, the input comes in on another; it returns once both ended.
func (s *Server) streamTerminal(ws *websocket.Conn, t *core.Terminal) {
	c := t.Attach()
	defer c.Detach()
	// Not the request's context: the connection is hijacked.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// A dropped client may be blocked in a write to a peer that stopped
		// reading: ending the context makes the write give up and closes
		// the connection. The server's Close ends every stream too.
		select {
		case <-c.Gone():
		case <-s.done:
		case <-ctx.Done():
		}
		cancel()
	}()
	input := make(chan struct{})
	go func() {
		defer close(input)
		defer cancel()
		terminalInput(ctx, ws, t)
	}()
	code, reason := terminalOutput(ctx, ws, c, t)
	select {
	case <-s.done:
		code, reason = websocket.StatusGoingAway, "the host is stopping"
	default:
	}
	// The peer may be gone already: then there is no one to tell.
	_ = ws.Close(code, reason)
	<-input
}

// terminalOutput sends the output until the stream ends and returns how to
// close the WebSocket.
func terminalOutput(ctx context.Context, ws *websocket.Conn, c *core.TerminalClient, t *core.Terminal) (websocket.StatusCode, string) {
	for {
		p, err := c.Next(ctx)
		if err == nil {
			err = ws.Write(ctx, websocket.MessageBinary, p)
		}
		switch {
		case err == nil:
			continue
		case c.Dropped():
			return client.CloseDropped, "fell behind the output: attach again"
		case errors.Is(err, io.EOF):
			info := t.Info()
			if info.Error != "" {
				return websocket.StatusInternalError, "the exit status is unknown"
			}
			return websocket.StatusCode(client.CloseExited + min(max(info.ExitCode, 0), 999)), "exited"
		}
		return websocket.StatusNormalClosure, ""
	}
}

// terminalInput types the client's binary frames into the program and
// applies its resizes, until the client goes or ctx ends. A frame the host
// cannot use closes the stream with a policy violation.
func terminalInput(ctx context.Context, ws *websocket.Conn, t *core.Terminal) {
	for {
		typ, b, err := ws.Read(ctx)
		if err != nil {
			return
		}
		if typ == websocket.MessageBinary {
			if _, err := t.Write(b); err != nil {
				if errors.Is(err, core.ErrTerminalExited) {
					continue // the output side closes the stream with the status
				}
				_ = ws.Close(websocket.StatusInternalError, "input failed") // the stream is over either way
				return
			}
			continue
		}
		var ctl client.TerminalControl
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ctl); err != nil || ctl.Resize == nil {
			_ = ws.Close(websocket.StatusPolicyViolation, `want {"resize":{"cols":C,"rows":R}}`) // the stream is over either way
			return
		}
		err = t.Resize(terminal.Size{Cols: ctl.Resize.Cols, Rows: ctl.Resize.Rows})
		switch {
		case err == nil, errors.Is(err, core.ErrTerminalExited):
		case errors.Is(err, terminal.ErrBadRequest):
			_ = ws.Close(websocket.StatusPolicyViolation, "bad size: want cols and rows from 1 to 65535") // the stream is over either way
			return
		default:
			_ = ws.Close(websocket.StatusInternalError, "resize failed") // the stream is over either way
			return
		}
	}
}
