package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// idleAgent is an agent for sessions that are created and never run.
func idleAgent() MapResolver { return MapResolver{"m": &scripted.Model{}} }

// termSize is the size the tests open terminals at.
var termSize = terminal.Size{Cols: 80, Rows: 24}

// readUntil takes c's output until it holds want and returns it all. The
// deadline only turns a hang into a failure; nothing depends on timing.
func readUntil(t *testing.T, c *TerminalClient, want string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got bytes.Buffer
	for !strings.Contains(got.String(), want) {
		p, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for %q: %v; got %q", want, err, tail(got.String()))
		}
		got.Write(p)
	}
	return got.String()
}

// drain takes c's output until its stream ends and returns the error that
// ended it.
func drain(t *testing.T, c *TerminalClient) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if _, err := c.Next(ctx); err != nil {
			return err
		}
	}
}

func tail(s string) string {
	if len(s) > 300 {
		return "…" + s[len(s)-300:]
	}
	return s
}

func openShell(t *testing.T, e *Engine, session string) *Terminal {
	t.Helper()
	term, err := e.OpenTerminal(TerminalOptions{Session: session, Argv: []string{"/bin/sh"}, Size: termSize})
	if err != nil {
		t.Fatal(err)
	}
	return term
}

func typeIn(t *testing.T, term *Terminal, line string) {
	t.Helper()
	if _, err := term.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
}

// TestTerminalShell: a shell in the workspace answers what is typed; a
// second client gets the scrollback; a resize reaches the program; its
// exit code is kept after it ends, until the terminal is closed.
func TestTerminalShell(t *testing.T) {
	r := newRig(t, nil)
	term := openShell(t, r.e, "")
	c1 := term.Attach()
	// The arithmetic is expanded by the shell: the echo of what was typed
	// does not match, only the command's output does.
	typeIn(t, term, "echo hi$((6*7))")
	readUntil(t, c1, "hi42")

	c2 := term.Attach()
	readUntil(t, c2, "hi42") // from the scrollback
	if n := term.Info().Clients; n != 2 {
		t.Fatalf("%d clients attached", n)
	}

	if err := term.Resize(terminal.Size{Cols: 100, Rows: 40}); err != nil {
		t.Fatal(err)
	}
	typeIn(t, term, "stty size; pwd")
	readUntil(t, c1, "40 100")
	if out := readUntil(t, c2, r.ws); !strings.Contains(out, "40 100") {
		t.Fatalf("the second client saw %q", tail(out))
	}

	list, err := r.e.Terminals()
	if err != nil || len(list) != 1 || list[0].ID != term.ID() || !list[0].Running || list[0].Size.Cols != 100 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	typeIn(t, term, "exit 7")
	for _, c := range []*TerminalClient{c1, c2} {
		if err := drain(t, c); !errors.Is(err, io.EOF) {
			t.Fatalf("the stream ended with %v", err)
		}
	}
	info := term.Info()
	if info.Running || info.ExitCode != 7 || info.Error != "" {
		t.Fatalf("after exit: %+v", info)
	}
	if _, err := term.Write([]byte("x")); !errors.Is(err, ErrTerminalExited) {
		t.Fatalf("input after exit: %v", err)
	}
	// Kept after exit, scrollback included.
	again, err := r.e.Terminal(term.ID())
	if err != nil {
		t.Fatal(err)
	}
	late := again.Attach()
	if out := readUntil(t, late, "hi42"); !strings.Contains(out, "40 100") {
		t.Fatalf("late attach: %q", tail(out))
	}
	if err := drain(t, late); !errors.Is(err, io.EOF) {
		t.Fatalf("a late client's stream ended with %v", err)
	}
	if err := r.e.CloseTerminal(term.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.Terminal(term.ID()); !errors.Is(err, ErrUnknownTerminal) {
		t.Fatalf("after close: %v", err)
	}
	if err := r.e.CloseTerminal(term.ID()); !errors.Is(err, ErrUnknownTerminal) {
		t.Fatalf("closed twice: %v", err)
	}
}

// TestTerminalCloseKillsTheProgram: closing a running terminal kills its
// program and ends its clients' streams with the signal's status.
func TestTerminalCloseKillsTheProgram(t *testing.T) {
	r := newRig(t, nil)
	term, err := r.e.OpenTerminal(TerminalOptions{Argv: []string{"sleep", "600"}, Size: termSize})
	if err != nil {
		t.Fatal(err)
	}
	c := term.Attach()
	if err := r.e.CloseTerminal(term.ID()); err != nil {
		t.Fatal(err)
	}
	if err := drain(t, c); !errors.Is(err, io.EOF) {
		t.Fatalf("the stream ended with %v", err)
	}
	if info := term.Info(); info.Running || info.ExitCode <= 128 {
		t.Fatalf("killed: %+v", info)
	}
}

// TestTerminalRefusals: bad sizes, unknown sessions and a read-only
// session on the host are refused with errors callers can tell apart.
func TestTerminalRefusals(t *testing.T) {
	r := newRig(t, idleAgent())
	if _, err := r.e.OpenTerminal(TerminalOptions{}); !errors.Is(err, terminal.ErrBadRequest) {
		t.Fatalf("no size: %v", err)
	}
	if _, err := r.e.OpenTerminal(TerminalOptions{Session: "nosuch", Size: termSize}); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("unknown session: %v", err)
	}
	ro := r.create(CreateOptions{Agent: "m", Instructions: "t", Access: sessions.ReadOnly})
	if _, err := r.e.OpenTerminal(TerminalOptions{Session: ro.ID, Size: termSize}); !errors.Is(err, terminal.ErrReadOnlyLocal) {
		t.Fatalf("read-only session on the host: %v", err)
	}
	if _, err := r.e.Terminal("t0"); !errors.Is(err, ErrUnknownTerminal) {
		t.Fatalf("unknown terminal: %v", err)
	}
	list, err := r.e.Terminals()
	if err != nil || len(list) != 0 {
		t.Fatalf("nothing was opened: %+v, %v", list, err)
	}
}

// TestTerminalInASession: a session's terminal runs in the session's
// environment: a local session's starts in the workspace with the agents'
// base environment, not the host's whole one.
func TestTerminalInASession(t *testing.T) {
	t.Setenv("ATELIER_TERMINAL_TEST_SECRET", "s3cret")
	r := newRig(t, idleAgent())
	rec := r.create(CreateOptions{Agent: "m", Instructions: "t"})
	term := openShell(t, r.e, rec.ID[:8]) // a prefix names the session
	if got := term.Info().Session; got != rec.ID {
		t.Fatalf("session %q", got)
	}
	c := term.Attach()
	typeIn(t, term, `echo "[${ATELIER_TERMINAL_TEST_SECRET:-unset}]"; pwd`)
	out := readUntil(t, c, r.ws)
	if !strings.Contains(out, "[unset]") {
		t.Fatalf("the session's terminal sees the host's environment: %q", tail(out))
	}
	host := openShell(t, r.e, "")
	hc := host.Attach()
	typeIn(t, host, `echo "[${ATELIER_TERMINAL_TEST_SECRET:-unset}]"`)
	readUntil(t, hc, "[s3cret]")
}

// TestTerminalsEndWithTheEngine: the engine's Close ends every terminal
// (clients see their streams end, the status is kept) and later calls
// fail with ErrClosed instead of starting a new registry.
func TestTerminalsEndWithTheEngine(t *testing.T) {
	e, err := Open(t.TempDir(), Options{NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	term := openShell(t, e, "")
	c := term.Attach()
	typeIn(t, term, "echo up$((1+1))")
	readUntil(t, c, "up2")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-term.Done():
	default:
		t.Fatal("Close returned with a terminal still pumping")
	}
	if err := drain(t, c); !errors.Is(err, io.EOF) {
		t.Fatalf("the stream ended with %v", err)
	}
	if term.Info().Running {
		t.Fatal("still running after the engine closed")
	}
	if _, err := e.OpenTerminal(TerminalOptions{Size: termSize}); !errors.Is(err, ErrClosed) {
		t.Fatalf("open after close: %v", err)
	}
	if _, err := e.Terminals(); !errors.Is(err, ErrClosed) {
		t.Fatalf("list after close: %v", err)
	}
	if _, err := e.Terminal(term.ID()); !errors.Is(err, ErrClosed) {
		t.Fatalf("get after close: %v", err)
	}
	if err := e.CloseTerminal(term.ID()); !errors.Is(err, ErrClosed) {
		t.Fatalf("close after close: %v", err)
	}
}

// TestTerminalFanoutDropsOnlyWhoFallsBehind: the fan-out queues each piece
// for every client without waiting; a client that never takes its output
// is dropped when its queue would pass the bound, one that takes its
// output between pieces never is. The test decides when each client
// drains, so it does not depend on scheduling.
func TestTerminalFanoutDropsOnlyWhoFallsBehind(t *testing.T) {
	const limit = 1000
	f := newFanout(256, limit)
	f.write([]byte("before\n"))
	slow, quick := f.attach(), f.attach()
	ctx := context.Background()
	if p, err := quick.Next(ctx); err != nil || string(p) != "before\n" {
		t.Fatalf("scrollback: %q, %v", p, err)
	}
	piece := bytes.Repeat([]byte("x"), 100)
	queued := len("before\n") // the slow client's scrollback
	for i := 0; i < 50; i++ {
		f.write(piece)
		if queued+len(piece) <= limit {
			queued += len(piece)
			if slow.Dropped() {
				t.Fatalf("piece %d: dropped with %d bytes queued, under the bound", i, queued)
			}
		} else if !slow.Dropped() {
			t.Fatalf("piece %d: not dropped at %d bytes queued", i, queued+len(piece))
		}
		p, err := quick.Next(ctx)
		if err != nil || !bytes.Equal(p, piece) {
			t.Fatalf("piece %d: the quick client got %q, %v", i, p, err)
		}
	}
	select {
	case <-slow.Gone():
	default:
		t.Fatal("a dropped client's Gone is open")
	}
	if _, err := slow.Next(ctx); !errors.Is(err, ErrTerminalDropped) {
		t.Fatalf("the slow client's stream ended with %v", err)
	}
	if quick.Dropped() || f.clientCount() != 1 {
		t.Fatalf("quick dropped %v, %d clients", quick.Dropped(), f.clientCount())
	}
	// Attaching again replays the scrollback: the latest output, from a
	// line break on once older output was lost.
	f.write([]byte("line one\nline two"))
	again := f.attach()
	if p, err := again.Next(ctx); err != nil || string(p) != "line two" {
		t.Fatalf("reattached: %q, %v", p, err)
	}
	f.end()
	if _, err := quick.Next(ctx); err != nil {
		t.Fatalf("queued output is delivered after the end: %v", err)
	}
	if _, err := quick.Next(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("after the end: %v", err)
	}
	quick.Detach()
	if _, err := quick.Next(ctx); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("after detach: %v", err)
	}
}

// TestTerminalScrollback: the ring keeps the latest output in order across
// wraps, and a write larger than the ring keeps its end.
func TestTerminalScrollback(t *testing.T) {
	r := scrollback{buf: make([]byte, 10)}
	var all strings.Builder
	for i := 0; i < 30; i++ {
		s := fmt.Sprint(i % 10)
		if i%4 == 0 {
			s += "ab"
		}
		r.write([]byte(s))
		all.WriteString(s)
		want := all.String()
		want = want[max(len(want)-10, 0):]
		if got := string(r.bytes()); got != want {
			t.Fatalf("after %q: %q, want %q", s, got, want)
		}
	}
	r.write([]byte("0123456789abcdef"))
	if got := string(r.bytes()); got != "6789abcdef" {
		t.Fatalf("a write larger than the ring: %q", got)
	}
}

// TestTerminalInADockerSession: a Docker session's terminal runs in the
// session's container: the one its commands run in.
func TestTerminalInADockerSession(t *testing.T) {
	img := dockerImage(t)
	r := newRig(t, idleAgent())
	rec := r.create(CreateOptions{Agent: "m", Instructions: "t", Execution: "docker", Image: img})
	res, err := r.e.Exec(context.Background(), rec.ID, ExecCommand{Shell: "hostname"})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %+v, %v", res, err)
	}
	host := strings.TrimSpace(res.Stdout)
	term, err := r.e.OpenTerminal(TerminalOptions{Session: rec.ID, Argv: []string{"sh"}, Size: termSize})
	if err != nil {
		t.Fatal(err)
	}
	c := term.Attach()
	typeIn(t, term, `echo "[$(hostname)]"; exit 3`)
	readUntil(t, c, "["+host+"]")
	if err := drain(t, c); !errors.Is(err, io.EOF) {
		t.Fatalf("the stream ended with %v", err)
	}
	if info := term.Info(); info.Running || info.ExitCode != 3 {
		t.Fatalf("after exit: %+v", info)
	}
}
