package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// raw sends a request over the rig's socket and decodes a problem answer.
func (r *rig) raw(method, path string, body io.Reader) (int, client.Problem) {
	r.t.Helper()
	hc := &http.Client{Transport: r.transport()}
	req, err := http.NewRequestWithContext(context.Background(), method, "http://atelier"+path, body)
	if err != nil {
		r.t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var p client.Problem
	if resp.StatusCode >= 300 {
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			r.t.Fatalf("%s %s: %d with %s", method, path, resp.StatusCode, ct)
		}
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			r.t.Fatal(err)
		}
	}
	return resp.StatusCode, p
}

func (r *rig) transport() http.RoundTripper {
	return &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", r.sock)
	}}
}

// TestErrorCodes: each kind of refusal has its status and stable code, as
// problem details, and the client keeps the code.
func TestErrorCodes(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 20*time.Second)
	created, err := r.c.Create(ctx, client.CreateRequest{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	id := created.ID
	if _, err := r.c.Send(ctx, id, "one", "K"); err != nil {
		t.Fatal(err)
	}
	again, err := r.c.Send(ctx, id, "one", "K")
	if err != nil || again.Key == nil || again.Key.State != sessions.KeyQueued {
		t.Fatalf("a repeated key: %+v, %v", again, err)
	}
	cases := []struct {
		name string
		call func() error
		code string
		st   int
	}{
		{"unknown session", func() error { _, err := r.c.Session(ctx, "0000nosuch"); return err }, client.CodeUnknownSession, 404},
		{"bad id", func() error { _, err := r.c.Session(ctx, "bad.id"); return err }, client.CodeBadRequest, 400},
		{"transition", func() error { _, err := r.c.Pause(ctx, id); return err }, client.CodeTransitionRefused, 409},
		{"key conflict", func() error { _, err := r.c.Send(ctx, id, "two", "K"); return err }, client.CodeKeyConflict, 409},
		{"empty text", func() error { _, err := r.c.Send(ctx, id, "", ""); return err }, client.CodeBadRequest, 400},
		{"bad key", func() error { _, err := r.c.Send(ctx, id, "x", "a key"); return err }, client.CodeBadRequest, 400},
		{"bad policy", func() error { _, err := r.c.SetApproval(ctx, id, "yolo"); return err }, client.CodeBadRequest, 400},
		{"bad mode", func() error { _, err := r.c.Create(ctx, client.CreateRequest{Mode: "forever"}); return err }, client.CodeBadRequest, 400},
		{"unknown agent", func() error { _, err := r.c.Create(ctx, client.CreateRequest{Agent: "nobody"}); return err }, client.CodeUnknownAgent, 400},
		{"model at create", func() error { _, err := r.c.Create(ctx, client.CreateRequest{Model: "m"}); return err }, client.CodeNotSupported, 501},
		{"unknown interaction", func() error { return r.c.Respond(ctx, id, "0000nosuch", client.Response{Text: "x"}) }, client.CodeUnknownInteraction, 404},
		{"bad decision", func() error { return r.c.Respond(ctx, id, "0000nosuch", client.Response{Decision: "maybe"}) }, client.CodeBadRequest, 400},
		{"not queued", func() error { return r.c.RemoveQueued(ctx, id, "0000nosuch") }, client.CodeNotQueued, 404},
		{"bad move", func() error { return r.c.MoveQueued(ctx, id, "0000nosuch", -1) }, client.CodeBadRequest, 400},
		{"edit not queued", func() error { return r.c.EditQueued(ctx, id, "0000nosuch", "x") }, client.CodeNotQueued, 404},
		{"empty edit", func() error { return r.c.EditQueued(ctx, id, "0000nosuch", " ") }, client.CodeBadRequest, 400},
		{"unknown key", func() error { return r.c.ForgetKey(ctx, id, "nosuch") }, client.CodeUnknownKey, 404},
		{"key not uncertain", func() error { return r.c.ForgetKey(ctx, id, "K") }, client.CodeKeyNotUncertain, 409},
		{"bad limit", func() error { _, err := r.c.Messages(ctx, id, 5000, ""); return err }, client.CodeBadRequest, 400},
		{"unknown before", func() error { _, err := r.c.Messages(ctx, id, 5, "0000nosuch"); return err }, client.CodeBadRequest, 400},
		{"fork up_to", func() error { _, err := r.c.Fork(ctx, id, "0000nosuch", ""); return err }, client.CodeBadRequest, 400},
		{"exec both", func() error {
			_, err := r.c.Exec(ctx, client.ExecRequest{Session: id, Argv: []string{"true"}, Shell: "true"})
			return err
		}, client.CodeBadRequest, 400},
		{"exec timeout", func() error {
			_, err := r.c.Exec(ctx, client.ExecRequest{Session: id, Argv: []string{"true"}, Timeout: "soon"})
			return err
		}, client.CodeBadRequest, 400},
		{"events of nobody", func() error { _, err := r.c.Events(ctx, "0000nosuch", 0); return err }, client.CodeUnknownSession, 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var p *client.Problem
			if !asProblem(err, &p) || p.Code != tc.code || p.Status != tc.st {
				t.Fatalf("got %v, want %d %s", err, tc.st, tc.code)
			}
		})
	}
	// The transport-level refusals, checked on the wire.
	wire := []struct {
		name, method, path, body string
		st                       int
		code                     string
	}{
		{"unknown field", "POST", "/v1/sessions", `{"task":"t","colour":"red"}`, 400, client.CodeBadRequest},
		{"malformed", "POST", "/v1/sessions", `{"task":`, 400, client.CodeBadRequest},
		{"two values", "POST", "/v1/sessions/" + id + "/send", `{"text":"a"}{"text":"b"}`, 400, client.CodeBadRequest},
		{"no route", "GET", "/v1/nothing", "", 404, client.CodeNotFound},
		{"unknown action", "POST", "/v1/sessions/" + id + "/explode", "", 404, client.CodeNotFound},
		{"method", "PUT", "/v1/sessions", "", 405, client.CodeMethodNotAllowed},
		{"instance", "POST", "/v1/instances/other/exec", `{"session":"` + id + `","argv":["true"]}`, 404, client.CodeUnknownInstance},
		{"bad archived", "GET", "/v1/sessions?archived=maybe", "", 400, client.CodeBadRequest},
	}
	for _, tc := range wire {
		t.Run(tc.name, func(t *testing.T) {
			st, p := r.raw(tc.method, tc.path, strings.NewReader(tc.body))
			if st != tc.st || p.Code != tc.code || p.Type == "" || p.Title == "" || p.Status != st {
				t.Fatalf("got %d %+v, want %d %s", st, p, tc.st, tc.code)
			}
		})
	}
	t.Run("17 MB body", func(t *testing.T) {
		body := `{"text":"` + strings.Repeat("a", 17<<20) + `"}`
		st, p := r.raw("POST", "/v1/sessions/"+id+"/send", bytes.NewReader([]byte(body)))
		if st != 413 || p.Code != client.CodeBodyTooLarge {
			t.Fatalf("got %d %+v", st, p)
		}
	})
	t.Run("resolved", func(t *testing.T) {
		if _, err := r.c.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		var it client.Interaction
		poll.Until(t, "the awaited state", func() bool {
			its, err := r.c.Interactions(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(its) > 0 {
				it = its[0]
			}
			return len(its) > 0
		})
		resp := client.Response{Decision: sessions.AllowOnce, Text: "hello"}
		if err := r.c.Respond(ctx, id, it.ID, resp); err != nil {
			t.Fatal(err)
		}
		if err := r.c.Respond(ctx, id, it.ID, resp); !client.IsCode(err, client.CodeAlreadyResolved) {
			t.Fatalf("answering twice: %v", err)
		}
	})
}

func asProblem(err error, p **client.Problem) bool { return errors.As(err, p) }
