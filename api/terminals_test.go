package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/atelier-studio/atelier/api/client"
)

// openShell opens /bin/sh in the workspace through the API.
func openShell(t *testing.T, c *client.Client) client.Terminal {
	t.Helper()
	term, err := c.OpenTerminal(ctxFor(t, 10*time.Second), client.TerminalRequest{Argv: []string{"/bin/sh"}, Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	if !term.Running || term.ID == "" || term.Cols != 80 {
		t.Fatalf("opened %+v", term)
	}
	return term
}

func attach(t *testing.T, c *client.Client, id string) *client.TerminalConn {
	t.Helper()
	conn, err := c.AttachTerminal(ctxFor(t, 10*time.Second), id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := conn.Close(); err != nil {
			t.Error(err)
		}
	})
	// A hang fails the test instead of stalling it; nothing depends on
	// this timing.
	stop := time.AfterFunc(60*time.Second, func() { _ = conn.Close() }) // the test fails on the read error
	t.Cleanup(func() { stop.Stop() })
	return conn
}

// reader reads a terminal's stream and keeps only its recent output, so a
// long stream costs little.
type reader struct {
	conn *client.TerminalConn
	buf  []byte
}

// until reads until the recent output holds want; it returns that output.
func (r *reader) until(t *testing.T, want string) string {
	t.Helper()
	p := make([]byte, 32<<10)
	for !bytes.Contains(r.buf, []byte(want)) {
		n, err := r.conn.Read(p)
		if err != nil {
			t.Fatalf("waiting for %q: %v; got …%q", want, err, r.buf[max(len(r.buf)-200, 0):])
		}
		r.buf = append(r.buf, p[:n]...)
		if len(r.buf) > 64<<10 {
			r.buf = append([]byte(nil), r.buf[len(r.buf)-4096:]...)
		}
	}
	out := string(r.buf)
	r.buf = r.buf[bytes.Index(r.buf, []byte(want))+len(want):]
	return out
}

// end reads the rest of the stream and returns the error that ended it.
func (r *reader) end() error {
	_, err := io.Copy(io.Discard, r.conn)
	if err == nil {
		return io.EOF // io.Copy turns the end of the stream into nil
	}
	return err
}

func typeLine(t *testing.T, conn *client.TerminalConn, line string) {
	t.Helper()
	if _, err := conn.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
}

// TestTerminalOverWebSocket: a shell the host owns answers what a client
// types; a second client gets the scrollback; a resize reaches the
// program; the exit code closes every stream and stays in the terminal's
// description until it is closed.
func TestTerminalOverWebSocket(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 30*time.Second)
	term := openShell(t, r.c)
	c1 := attach(t, r.c, term.ID)
	r1 := &reader{conn: c1}
	typeLine(t, c1, "echo hi$((6*7))") // the echo of the typing does not match
	r1.until(t, "hi42")

	c2 := attach(t, r.c, term.ID)
	r2 := &reader{conn: c2}
	r2.until(t, "hi42") // the scrollback

	// Frames are applied in order: the resize before the typing.
	if err := c1.Resize(100, 40); err != nil {
		t.Fatal(err)
	}
	typeLine(t, c1, "stty size")
	r1.until(t, "40 100")
	r2.until(t, "40 100")
	got, err := r.c.Terminal(ctx, term.ID)
	if err != nil || got.Clients != 2 || got.Cols != 100 || got.Rows != 40 || !got.Running {
		t.Fatalf("described: %+v, %v", got, err)
	}

	typeLine(t, c2, "exit 7")
	for i, rd := range []*reader{r1, r2} {
		if err := rd.end(); !errors.Is(err, io.EOF) {
			t.Fatalf("client %d: the stream ended with %v", i+1, err)
		}
		if code, ok := rd.conn.ExitCode(); !ok || code != 7 {
			t.Fatalf("client %d: exit code %d, %v", i+1, code, ok)
		}
	}
	got, err = r.c.Terminal(ctx, term.ID)
	if err != nil || got.Running || got.ExitCode != 7 {
		t.Fatalf("after exit: %+v, %v", got, err)
	}
	// A client attaching after the end gets the scrollback and the code.
	late := &reader{conn: attach(t, r.c, term.ID)}
	late.until(t, "hi42")
	if err := late.end(); !errors.Is(err, io.EOF) {
		t.Fatalf("late client: %v", err)
	}
	if code, ok := late.conn.ExitCode(); !ok || code != 7 {
		t.Fatalf("late client: exit code %d, %v", code, ok)
	}
	list, err := r.c.Terminals(ctx)
	if err != nil || len(list) != 1 || list[0].ID != term.ID {
		t.Fatalf("list: %+v, %v", list, err)
	}
	if err := r.c.CloseTerminal(ctx, term.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Terminal(ctx, term.ID); !client.IsCode(err, client.CodeUnknownTerminal) {
		t.Fatalf("after close: %v", err)
	}
}

// TestTerminalDetachAndClose: a client that detaches leaves the program
// running for the next; closing the terminal kills the program and ends
// the attached streams with its signal's status.
func TestTerminalDetachAndClose(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 30*time.Second)
	term := openShell(t, r.c)
	first, err := r.c.AttachTerminal(ctx, term.ID)
	if err != nil {
		t.Fatal(err)
	}
	typeLine(t, first, "X=kept$((1+1))")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	next := &reader{conn: attach(t, r.c, term.ID)}
	typeLine(t, next.conn, `echo "[$X]"`)
	next.until(t, "[kept2]")
	if err := r.c.CloseTerminal(ctx, term.ID); err != nil {
		t.Fatal(err)
	}
	if err := next.end(); !errors.Is(err, io.EOF) {
		t.Fatalf("the stream ended with %v", err)
	}
	if code, ok := next.conn.ExitCode(); !ok || code <= 128 {
		t.Fatalf("killed: exit code %d, %v", code, ok)
	}
}

// TestTerminalProblems: unknown terminals and instances, bad requests and
// a missing token are refused with problems, before any upgrade.
func TestTerminalProblems(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 30*time.Second)
	if _, err := r.c.Terminal(ctx, "t0123"); !client.IsCode(err, client.CodeUnknownTerminal) {
		t.Fatalf("get: %v", err)
	}
	if err := r.c.CloseTerminal(ctx, "t0123"); !client.IsCode(err, client.CodeUnknownTerminal) {
		t.Fatalf("delete: %v", err)
	}
	if _, err := r.c.AttachTerminal(ctx, "t0123"); !client.IsCode(err, client.CodeUnknownTerminal) {
		t.Fatalf("attach: %v", err)
	}
	if _, err := r.c.OpenTerminal(ctx, client.TerminalRequest{Cols: 0, Rows: 24}); !client.IsCode(err, client.CodeBadRequest) {
		t.Fatalf("no width: %v", err)
	}
	if _, err := r.c.OpenTerminal(ctx, client.TerminalRequest{Session: "nosuch", Cols: 80, Rows: 24}); !client.IsCode(err, client.CodeUnknownSession) {
		t.Fatalf("unknown session: %v", err)
	}
	if _, err := r.c.OpenTerminal(ctx, client.TerminalRequest{Argv: []string{""}, Cols: 80, Rows: 24}); !client.IsCode(err, client.CodeBadRequest) {
		t.Fatalf("empty program: %v", err)
	}
	if _, err := r.c.OpenTerminal(ctx, client.TerminalRequest{Name: "a\x1b[2Jb", Cols: 80, Rows: 24}); !client.IsCode(err, client.CodeBadRequest) {
		t.Fatalf("a name with a control character: %v", err)
	}
	// The name a studio gave its tab comes back to the next studio.
	named, err := r.c.OpenTerminal(ctx, client.TerminalRequest{Name: "shell · fix the parser", Argv: []string{"sleep", "30"}, Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.c.Terminal(ctx, named.ID); err != nil || got.Name != "shell · fix the parser" {
		t.Fatalf("the terminal's name: %+v, %v", got, err)
	}
	if err := r.c.CloseTerminal(ctx, named.ID); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: r.transport()}
	for _, tc := range []struct{ method, path, code string }{
		{"GET", "/v1/instances/other/terminals", client.CodeUnknownInstance},
		{"POST", "/v1/instances/other/terminals", client.CodeUnknownInstance},
		{"GET", "/v1/instances/other/terminals/t0123", client.CodeUnknownInstance},
		{"DELETE", "/v1/instances/other/terminals/t0123", client.CodeUnknownInstance},
		{"GET", "/v1/instances/other/terminals/t0123/ws", client.CodeUnknownInstance},
		{"GET", "/v1/instances/main/terminals/bad%20id", client.CodeBadRequest},
	} {
		req, err := http.NewRequestWithContext(ctx, tc.method, "http://atelier"+tc.path, strings.NewReader(`{"cols":80,"rows":24}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := problemOf(hc.Do(req)); !client.IsCode(err, tc.code) {
			t.Errorf("%s %s: %v", tc.method, tc.path, err)
		}
	}
	// The WebSocket route without an upgrade.
	term := openShell(t, r.c)
	if err := problemOf(hc.Get("http://atelier/v1/instances/main/terminals/" + term.ID + "/ws")); !client.IsCode(err, client.CodeBadRequest) {
		t.Fatalf("no upgrade: %v", err)
	}
	// A control frame the host cannot use ends the stream.
	conn, err := r.c.AttachTerminal(ctx, term.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Resize(0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, conn); websocket.CloseStatus(errors.Unwrap(err)) != websocket.StatusPolicyViolation {
		t.Fatalf("a bad resize: %v", err)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}

	// On a listener with a token, attaching needs it.
	tr := newRig(t, Options{Token: "sesame"})
	if _, err := tr.c.Terminals(ctx); !client.IsCode(err, client.CodeUnauthorized) {
		t.Fatalf("list without the token: %v", err)
	}
	if _, err := tr.c.AttachTerminal(ctx, "t0123"); !client.IsCode(err, client.CodeUnauthorized) {
		t.Fatalf("attach without the token: %v", err)
	}
	withToken, err := client.New(tr.sock, client.Options{Token: "sesame"})
	if err != nil {
		t.Fatal(err)
	}
	defer withToken.CloseIdle()
	tterm := openShell(t, withToken)
	tconn := &reader{conn: attach(t, withToken, tterm.ID)}
	typeLine(t, tconn.conn, "echo ok$((2+3))")
	tconn.until(t, "ok5")
}

// problemOf turns an HTTP answer into the problem it reports.
func problemOf(resp *http.Response, err error) error {
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // the problem is read below
	if resp.StatusCode < 300 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	var p client.Problem
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return err
	}
	return &p
}

// TestTerminalSlowClientIsDropped: a client that stops reading is dropped
// while one that reads keeps getting everything, and the program is never
// held up. The program writes in bursts, and the next burst starts only
// once the reading client has seen the end of the last: what that client
// has not taken yet never exceeds one burst, well under what the host
// queues for a client, however slowly its goroutines are scheduled. The
// other client never reads, so its queue grows by every burst until it
// overflows.
func TestTerminalSlowClientIsDropped(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 120*time.Second)
	term := openShell(t, r.c)
	quick := &reader{conn: attach(t, r.c, term.ID)}
	typeLine(t, quick.conn, "echo ready$((1+1))")
	quick.until(t, "ready2")
	slow := attach(t, r.c, term.ID)

	const burst = 256 << 10 // a quarter of a client's queue
	dropped := false
	for i := 1; i <= 400 && !dropped; i++ {
		typeLine(t, quick.conn, fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x; echo; echo B$((%d*1))E", burst, i))
		quick.until(t, fmt.Sprintf("B%dE", i))
		got, err := r.c.Terminal(ctx, term.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch got.Clients {
		case 1:
			dropped = true
			t.Logf("the client that never reads was dropped after %d bursts", i)
		case 2:
		default:
			t.Fatalf("burst %d: %d clients attached", i, got.Clients)
		}
	}
	if !dropped {
		t.Fatal("the client that never reads was never dropped")
	}
	// The reading client was not the one dropped: it goes on.
	typeLine(t, quick.conn, "echo still$((3+4))")
	quick.until(t, "still7")
	// The dropped one finds its stream ended once it reads what reached
	// it: with 1013 when the host was between writes, or cut off when it
	// was blocked writing to it.
	if _, err := io.Copy(io.Discard, slow); err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("the dropped client's stream ended with %v", err)
	}
	if _, ok := slow.ExitCode(); ok {
		t.Fatal("the dropped client was told the program exited")
	}
	typeLine(t, quick.conn, "exit 0")
	if err := quick.end(); !errors.Is(err, io.EOF) {
		t.Fatalf("the quick client's stream ended with %v", err)
	}
	if code, ok := quick.conn.ExitCode(); !ok || code != 0 {
		t.Fatalf("exit code %d, %v", code, ok)
	}
}

// TestTerminalsEndWithTheHost: closing the engine ends attached streams
// with the program's status, and later calls are refused as
// engine_closed.
func TestTerminalsEndWithTheHost(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 30*time.Second)
	term := openShell(t, r.c)
	rd := &reader{conn: attach(t, r.c, term.ID)}
	typeLine(t, rd.conn, "echo up$((1+1))")
	rd.until(t, "up2")
	if err := r.eng.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rd.end(); !errors.Is(err, io.EOF) {
		t.Fatalf("the stream ended with %v", err)
	}
	if _, err := r.c.Terminals(ctx); !client.IsCode(err, client.CodeEngineClosed) {
		t.Fatalf("list after close: %v", err)
	}
	if _, err := r.c.OpenTerminal(ctx, client.TerminalRequest{Cols: 80, Rows: 24}); !client.IsCode(err, client.CodeEngineClosed) {
		t.Fatalf("open after close: %v", err)
	}
}
