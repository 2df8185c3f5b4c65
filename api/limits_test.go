package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// TestTextLimit: a task, prompt, steer or queued edit over engine.MaxText
// is refused with 413 text_too_large, naming the limit, and creates or
// queues nothing; a task at the limit is taken, and the client's error
// matches engine.ErrTextTooLarge.
func TestTextLimit(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 20*time.Second)
	body := func(field, text string) io.Reader {
		b, err := json.Marshal(map[string]string{field: text})
		if err != nil {
			t.Fatal(err)
		}
		return bytes.NewReader(b)
	}
	over := strings.Repeat("x", engine.MaxText+1)
	refused := func(what string, st int, p client.Problem) {
		t.Helper()
		if st != http.StatusRequestEntityTooLarge || p.Code != engine.CodeTextTooLarge || !strings.Contains(p.Detail, "256 KiB") {
			t.Errorf("%s over the limit: %d %+v, want 413 %s naming 256 KiB", what, st, p, engine.CodeTextTooLarge)
		}
	}

	st, p := r.raw("POST", "/v1/sessions", body("task", over))
	refused("a task", st, p)
	if list, err := r.c.Sessions(ctx, false); err != nil || len(list) != 0 {
		t.Fatalf("after a refused create: %d session(s), %v", len(list), err)
	}
	if _, err := r.c.Create(ctx, client.CreateRequest{Task: over}); !errors.Is(err, engine.ErrTextTooLarge) {
		t.Errorf("the client's error for a task over the limit: %v", err)
	}

	s, err := r.c.Create(ctx, client.CreateRequest{Task: strings.Repeat("y", engine.MaxText), Mode: string(sessions.Continuous)})
	if err != nil {
		t.Fatalf("a task at the limit: %v", err)
	}
	rc, err := r.c.Send(ctx, s.ID, "first", "")
	if err != nil {
		t.Fatal(err)
	}
	st, p = r.raw("POST", "/v1/sessions/"+s.ID+"/send", body("text", over))
	refused("a prompt", st, p)
	st, p = r.raw("POST", "/v1/sessions/"+s.ID+"/steer", body("text", over))
	refused("a steer", st, p)
	st, p = r.raw("POST", "/v1/sessions/"+s.ID+"/queue/"+rc.ID+"/edit", body("text", over))
	refused("a queued edit", st, p)
	q, err := r.c.Queue(ctx, s.ID)
	if err != nil || len(q) != 1 || q[0].Text != "first" {
		t.Errorf("the queue after refused inputs: %d item(s), %v", len(q), err)
	}
}
