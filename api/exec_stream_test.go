package api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/redact"
)

// gate is a FIFO a command blocks on (`read x < FIFO`) until the test
// writes a line into it: the command cannot end before the test has seen
// what it printed first, whatever the machine's speed.
type gate struct {
	t    *testing.T
	path string
	once sync.Once
	done chan struct{}
}

func newGate(t *testing.T) *gate {
	t.Helper()
	g := &gate{t: t, path: filepath.Join(t.TempDir(), "gate"), done: make(chan struct{})}
	if err := syscall.Mkfifo(g.path, 0o600); err != nil {
		t.Fatal(err)
	}
	return g
}

// open lets the command go on, once. Opening a FIFO for writing blocks
// until the command opens it for reading, so it runs on a goroutine of
// its own; wait waits for it.
func (g *gate) open(line string) {
	g.once.Do(func() {
		go func() {
			defer close(g.done)
			f, err := os.OpenFile(g.path, os.O_WRONLY, 0)
			if err != nil {
				g.t.Error(err)
				return
			}
			if _, err := f.WriteString(line + "\n"); err != nil {
				g.t.Error(err)
			}
			if err := f.Close(); err != nil {
				g.t.Error(err)
			}
		}()
	})
}

func (g *gate) opened() bool {
	select {
	case <-g.done:
		return true
	default:
		return false
	}
}

func (g *gate) wait() { <-g.done }

// TestExecStreamLive: a streamed exec hands out what the command prints
// while it runs (the command waits on a FIFO the test writes only once it
// has seen that output), then its result with the exit code; the output
// pieces add up to the result's. Under the same key the exec is not run
// again: the one event is the recorded result.
func TestExecStreamLive(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 20*time.Second)
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	g := newGate(t)
	req := client.ExecRequest{Session: rec.ID, Key: "live-1",
		Shell: "printf 'ready\\n'; read line < '" + g.path + "'; printf '%s\\n' \"$line\" >&2; printf 'done\\n'; exit 3"}
	var chunks []client.ExecChunk
	var readyBeforeGate bool
	res, err := r.c.ExecStream(ctx, req, func(ch client.ExecChunk) {
		chunks = append(chunks, ch)
		if ch.Stream == "stdout" && strings.Contains(ch.Text, "ready") && !g.opened() {
			readyBeforeGate = true
			g.open("go on")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	g.wait()
	if !readyBeforeGate {
		t.Fatalf("the output did not arrive while the command ran: %+v", chunks)
	}
	if res.ExitCode != 3 || res.Stdout != "ready\ndone\n" || res.Stderr != "go on\n" || res.Replayed {
		t.Fatalf("the result: %+v", res)
	}
	var out, errs strings.Builder
	for _, ch := range chunks {
		switch ch.Stream {
		case "stdout":
			out.WriteString(ch.Text)
		case "stderr":
			errs.WriteString(ch.Text)
		default:
			t.Errorf("a chunk of stream %q", ch.Stream)
		}
	}
	if out.String() != res.Stdout || errs.String() != res.Stderr {
		t.Fatalf("the pieces add up to %q and %q, the result says %q and %q", out.String(), errs.String(), res.Stdout, res.Stderr)
	}

	// The same key: nothing runs (the gate is gone), one exit event.
	var again []client.ExecChunk
	replay, err := r.c.ExecStream(ctx, req, func(ch client.ExecChunk) { again = append(again, ch) })
	if err != nil || !replay.Replayed || replay.ExitCode != 3 || replay.Stdout != res.Stdout || len(again) != 0 {
		t.Fatalf("a repeated key: %+v, %v, pieces %+v", replay, err, again)
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	body := rawExecStream(t, r, "?stream=1", string(b))
	if strings.Count(body, "event: ") != 1 || !strings.Contains(body, "event: exit\n") || !strings.Contains(body, `"replayed":true`) {
		t.Fatalf("a repeated key on the wire:\n%s", body)
	}
}

// rawExecStream posts an exec with the query and body given, asking for
// events with the Accept header, and returns the stream's text.
func rawExecStream(t *testing.T, r *rig, query, body string) string {
	t.Helper()
	req, err := http.NewRequest("POST", "http://atelier/v1/instances/main/exec"+query, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{Transport: r.transport()}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return string(b)
}

// TestExecStreamWire: on the wire, output and result are named events
// with JSON data; ?stream=0 asks for the plain answer even with the
// Accept header.
func TestExecStreamWire(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 10*time.Second)
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	body := rawExecStream(t, r, "", `{"session":"`+rec.ID+`","argv":["sh","-c","echo out; echo err >&2"]}`)
	for _, want := range []string{"event: stdout\ndata: {\"stream\":\"stdout\",\"text\":\"out\\n\"}\n\n",
		"event: stderr\ndata: {\"stream\":\"stderr\",\"text\":\"err\\n\"}\n\n", "event: exit\ndata: {\"exit_code\":0,"} {
		if !strings.Contains(body, want) {
			t.Errorf("the stream lacks %q:\n%s", want, body)
		}
	}
	if i := strings.Index(body, "event: exit"); i < 0 || i < strings.LastIndex(body, "event: std") {
		t.Errorf("the exit event is not last:\n%s", body)
	}
	req, err := http.NewRequest("POST", "http://atelier/v1/instances/main/exec?stream=0",
		strings.NewReader(`{"session":"`+rec.ID+`","shell":"echo plain"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{Transport: r.transport()}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(b), `"stdout":"plain\n"`) {
		t.Fatalf("?stream=0: %d %s %s, %v", resp.StatusCode, resp.Header.Get("Content-Type"), b, err)
	}
}

// TestExecStreamRefusals: a streamed exec refused before it runs gets its
// problem and status, not a stream, and runs nothing.
func TestExecStreamRefusals(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 10*time.Second)
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ended, err := r.c.Create(ctx, client.CreateRequest{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Cancel(ctx, ended.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Exec(ctx, client.ExecRequest{Session: rec.ID, Shell: "echo one", Key: "k"}); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(r.ws, "ran")
	touch := "touch '" + marker + "'"
	cases := []struct {
		name, query, body string
		status            int
		code              string
	}{
		{"an unknown session", "?stream=1", `{"session":"0000nosuch","shell":"` + touch + `"}`, 404, client.CodeUnknownSession},
		{"an ended session", "?stream=1", `{"session":"` + ended.ID + `","shell":"` + touch + `"}`, 409, client.CodeTransitionRefused},
		{"a key reused", "?stream=1", `{"session":"` + rec.ID + `","shell":"` + touch + `","key":"k"}`, 409, client.CodeKeyConflict},
		{"an unknown field", "?stream=1", `{"session":"` + rec.ID + `","shell":"` + touch + `","tty":true}`, 400, client.CodeBadRequest},
		{"a bad stream value", "?stream=yes", `{"session":"` + rec.ID + `","shell":"` + touch + `"}`, 400, client.CodeBadRequest},
		{"an unknown instance", "", `{"session":"` + rec.ID + `","shell":"` + touch + `"}`, 404, client.CodeUnknownInstance},
	}
	for _, c := range cases {
		path := "/v1/instances/main/exec" + c.query
		if c.code == client.CodeUnknownInstance {
			path = "/v1/instances/other/exec?stream=1"
		}
		status, p := r.raw("POST", path, strings.NewReader(c.body))
		if status != c.status || p.Code != c.code {
			t.Errorf("%s: %d %s (%s), want %d %s", c.name, status, p.Code, p.Detail, c.status, c.code)
		}
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("a refused exec ran its command (%v)", err)
	}
	if _, err := r.c.ExecStream(ctx, client.ExecRequest{Session: "0000nosuch", Shell: "true"}, nil); !client.IsCode(err, client.CodeUnknownSession) {
		t.Fatalf("the client's stream of an unknown session: %v", err)
	}
}

// TestExecStreamRedactsAndKeepsCharacters: a secret the command prints in
// two writes never shows in the stream, not even its start; a character a
// read cuts in two arrives whole. The pieces match the recorded result.
func TestExecStreamRedactsAndKeepsCharacters(t *testing.T) {
	const secret = "abcdefghijkl"
	ws := t.TempDir()
	eng, err := core.Open(ws, core.Options{Agents: core.DemoResolver{Demo: &harness.Demo{}}, NoHistory: true,
		Redactor: redact.New([]redact.Secret{{Name: "TEST_TOKEN", Value: secret}})})
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(eng, Options{Version: "test"})
	ts := httptest.NewServer(newDeclaredAnswers(t, srv, srv))
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
	})
	c, err := client.New(ts.URL, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxFor(t, 20*time.Second)
	rec, err := c.Create(ctx, client.CreateRequest{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, first, rest string // the command's two writes, as printf formats
		want, firstPiece  string
	}{
		{"a secret in two writes", "x abcd", "efghijkl\\n", "x «redacted TEST_TOKEN»\n", "x "},
		{"a character in two writes", "z\\303", "\\251\\n", "zé\n", "z"},
	}
	for _, tc := range cases {
		g := newGate(t)
		shell := "printf '" + tc.first + "'; read line < '" + g.path + "'; printf '" + tc.rest + "'"
		var pieces []string
		res, err := c.ExecStream(ctx, client.ExecRequest{Session: rec.ID, Shell: shell}, func(ch client.ExecChunk) {
			pieces = append(pieces, ch.Text)
			g.open("go")
		})
		if err != nil {
			t.Fatal(err)
		}
		g.wait()
		if res.Stdout != tc.want || strings.Join(pieces, "") != tc.want {
			t.Fatalf("%s: pieces %q, result %q; want %q", tc.name, pieces, res.Stdout, tc.want)
		}
		// The first piece came before the gate opened: what could still
		// grow into a secret, or a character, was held back, the rest not.
		if pieces[0] != tc.firstPiece {
			t.Fatalf("%s: the first piece %q, want %q (all %q)", tc.name, pieces[0], tc.firstPiece, pieces)
		}
		for _, p := range pieces {
			if !utf8.ValidString(p) || strings.Contains(p, "abcd") || strings.Contains(p, "efgh") {
				t.Fatalf("%s: a piece shows a secret's part or a cut character: %q (all %q)", tc.name, p, pieces)
			}
		}
	}
}

// TestExecStreamOpensOnHeartbeat: a command that prints nothing for a
// while still gets its stream opened (by the heartbeat), so a client sees
// the request accepted; the result follows once the command ends.
func TestExecStreamOpensOnHeartbeat(t *testing.T) {
	r := newRig(t, Options{Heartbeat: time.Millisecond})
	ctx := ctxFor(t, 20*time.Second)
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	g := newGate(t)
	b, err := json.Marshal(client.ExecRequest{Session: rec.ID, Shell: "read line < '" + g.path + "'; echo \"$line\""})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, "POST", "http://atelier/v1/instances/main/exec?stream=1", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: r.transport()}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	// The command waits on the gate: these headers came before its end.
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || g.opened() {
		t.Fatalf("%d %s before the command ended", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	g.open("late")
	g.wait()
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rest), ": ping\n\n") || !strings.Contains(string(rest), `"text":"late\n"`) ||
		!strings.HasSuffix(string(rest), "\n\n") || !strings.Contains(string(rest), "event: exit\ndata: {\"exit_code\":0,") {
		t.Fatalf("the stream:\n%s", rest)
	}
}
