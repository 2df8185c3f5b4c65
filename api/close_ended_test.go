package api

import (
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/sessions"
)

// TestCloseOfEndedSessionIsHarmless: closing a session that has already
// ended answers as the engine does (a receipt that says so, no error),
// and changes nothing; closing an unknown one is still an error.
func TestCloseOfEndedSessionIsHarmless(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 10*time.Second)
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Cancel(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	local, err := r.eng.As("").CloseSession(rec.ID)
	if err != nil {
		t.Fatalf("the engine: %v", err)
	}
	remote, err := r.c.Close(ctx, rec.ID)
	if err != nil {
		t.Fatalf("over the API: %v", err)
	}
	if remote.When != local.When || !strings.Contains(remote.When, "already ENDED (cancelled)") || remote.ID != "" {
		t.Fatalf("receipts differ or say the wrong thing: engine %+v, API %+v", local, remote)
	}
	got, err := r.c.Session(ctx, rec.ID)
	if err != nil || got.Status != sessions.Ended || got.EndReason != sessions.Cancelled {
		t.Fatalf("after: %+v, %v", got, err)
	}
	if _, err := r.c.Close(ctx, "nosuch"); !client.IsCode(err, client.CodeUnknownSession) {
		t.Fatalf("unknown session: %v", err)
	}
}
