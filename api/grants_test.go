package api

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// grantedSession starts a demo session under the ask policy and answers its
// first approval (the demo's `ls -la`) "allow for this session", then
// waits until it parks on its next approval (so its logs hold still) and
// returns the session's id and the grant the answer made.
func grantedSession(t *testing.T, r *rig, ctx context.Context) (string, string) {
	t.Helper()
	rec, st := startAsking(t, r, ctx)
	grant := ""
	for ev := range st.C {
		var its []sessions.Interaction
		switch {
		case ev.Kind == client.KindSnapshot:
			for _, it := range ev.Snapshot.Interactions {
				its = append(its, it.Interaction)
			}
		case ev.Kind == client.KindInteraction && ev.SessionID == rec.ID:
			its = append(its, *ev.Interaction)
		}
		for _, it := range its {
			if it.Kind == sessions.Question && !it.Resolved {
				// The demo's question, between its two approvals.
				if err := r.c.Respond(ctx, rec.ID, it.ID, client.Response{Text: "hello"}); err != nil && !client.IsCode(err, client.CodeAlreadyResolved) {
					t.Fatal(err)
				}
				continue
			}
			if it.Kind != sessions.Approval || it.Resolved {
				continue
			}
			if it.Tool != "exec" {
				// The next approval: the session is parked on it, and its
				// logs stay as they are until it is answered.
				return rec.ID, grant
			}
			if err := r.c.Respond(ctx, rec.ID, it.ID, client.Response{Decision: sessions.AllowSession}); err != nil {
				t.Fatal(err)
			}
			grant = "exec:" + it.Command
		}
	}
	t.Fatalf("the stream ended before an approval: %v", st.Err())
	return "", ""
}

// startAsking creates a demo session under the ask policy, follows its
// events from the start, and starts it.
func startAsking(t *testing.T, r *rig, ctx context.Context) (sessions.Session, *client.Stream) {
	t.Helper()
	rec, err := r.c.Create(ctx, client.CreateRequest{Task: "grant me", Approval: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.c.Events(ctx, rec.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Start(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	return rec, st
}

// sessionFiles reads a session's control and interaction logs: what a
// refused request must leave as it was.
func sessionFiles(t *testing.T, ws, id string) string {
	t.Helper()
	var b strings.Builder
	for _, f := range []string{"controls.jsonl", "interactions.jsonl"} {
		data, err := os.ReadFile(filepath.Join(ws, sessions.StateDir, "sessions", id, f))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		b.WriteString(f + ":\n" + string(data))
	}
	return b.String()
}

// TestGrantsRevoke: an "allow for this session" answer shows up as a grant;
// a process the host started cannot revoke it, nor can a request for an
// unknown session or grant or with unknown fields, and none of those
// changes anything; the operator's revoke removes it, and a second revoke
// of it is an unknown grant.
func TestGrantsRevoke(t *testing.T) {
	var spawned atomic.Bool
	r := newRig(t, Options{SpawnedCaller: func(*http.Request) (bool, error) { return spawned.Load(), nil }})
	ctx := ctxFor(t, 30*time.Second)
	id, grant := grantedSession(t, r, ctx)
	if grant != "exec:ls -la" {
		t.Fatalf("the demo's first approval made the grant %q", grant)
	}
	got, err := r.c.Grants(ctx, id)
	if err != nil || !slices.Equal(got, []string{grant}) {
		t.Fatalf("grants: %q, %v; want [%q]", got, err, grant)
	}
	if byPrefix, err := r.c.Grants(ctx, id[:8]); err != nil || !slices.Equal(byPrefix, got) {
		t.Fatalf("grants by the id's prefix: %q, %v", byPrefix, err)
	}
	before := sessionFiles(t, r.ws, id)

	revokePath := "/v1/sessions/" + id + "/grants/revoke"
	refusals := []struct {
		name, path, body string
		spawned          bool
		status           int
		code             string
	}{
		{"a spawned caller", revokePath, `{"grant":"exec:ls -la"}`, true, 403, "agent_cannot_approve"},
		{"an unknown grant", revokePath, `{"grant":"exec:rm -rf /"}`, false, 404, client.CodeUnknownGrant},
		{"no grant", revokePath, `{}`, false, 400, client.CodeBadRequest},
		{"an unknown field", revokePath, `{"grant":"exec:ls -la","all":true}`, false, 400, client.CodeBadRequest},
		{"two values", revokePath, `{"grant":"exec:ls -la"} {}`, false, 400, client.CodeBadRequest},
		{"an unknown session", "/v1/sessions/0000nosuch/grants/revoke", `{"grant":"exec:ls -la"}`, false, 404, client.CodeUnknownSession},
		{"a bad id", "/v1/sessions/bad.id/grants/revoke", `{"grant":"exec:ls -la"}`, false, 400, client.CodeBadRequest},
	}
	for _, c := range refusals {
		spawned.Store(c.spawned)
		status, p := r.raw("POST", c.path, strings.NewReader(c.body))
		if status != c.status || p.Code != c.code {
			t.Errorf("revoke with %s: %d %s (%s), want %d %s", c.name, status, p.Code, p.Detail, c.status, c.code)
		}
	}
	spawned.Store(false)
	if got, err := r.c.Grants(ctx, id); err != nil || !slices.Equal(got, []string{grant}) {
		t.Fatalf("grants after the refusals: %q, %v", got, err)
	}
	if after := sessionFiles(t, r.ws, id); after != before {
		t.Fatalf("a refused revoke changed the session's logs:\nbefore %s\nafter %s", before, after)
	}
	if _, err := r.c.Grants(ctx, "0000nosuch"); !client.IsCode(err, client.CodeUnknownSession) {
		t.Fatalf("grants of an unknown session: %v", err)
	}

	if err := r.c.Revoke(ctx, id, grant); err != nil {
		t.Fatal(err)
	}
	if got, err := r.c.Grants(ctx, id); err != nil || len(got) != 0 || got == nil {
		t.Fatalf("grants after the revoke: %#v, %v; want []", got, err)
	}
	if err := r.c.Revoke(ctx, id, grant); !errors.Is(err, client.ErrUnknownGrant) {
		t.Fatalf("a second revoke: %v, want unknown_grant", err)
	}
	if !strings.Contains(sessionFiles(t, r.ws, id), "grant_revoked") {
		t.Fatal("the revoke is not in the session's interactions log")
	}
}

// TestRepairs: a session whose control log ends in a torn line (a host
// killed mid-append) is repaired when the engine opens it, and repairs
// says so; a clean session has none; an unknown session is a 404.
func TestRepairs(t *testing.T) {
	ws := t.TempDir()
	eng, err := core.Open(ws, core.Options{Agents: core.DemoResolver{Demo: &harness.Demo{}}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	torn, err := eng.Create(core.CreateOptions{Instructions: "torn"})
	if err != nil {
		t.Fatal(err)
	}
	clean, err := eng.Create(core.CreateOptions{Instructions: "clean"})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(ws, sessions.StateDir, "sessions", torn.ID, sessions.ControlsFile),
		os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"cut-off-mid`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	r := openRig(t, ws, Options{})
	ctx := ctxFor(t, 10*time.Second)
	reps, err := r.c.Repairs(ctx, torn.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 || reps[0].File != sessions.ControlsFile || reps[0].Action == "" {
		t.Fatalf("repairs of the torn session: %+v", reps)
	}
	if reps, err := r.c.Repairs(ctx, clean.ID); err != nil || reps == nil || len(reps) != 0 {
		t.Fatalf("repairs of a clean session: %#v, %v; want []", reps, err)
	}
	if _, err := r.c.Repairs(ctx, "0000nosuch"); !client.IsCode(err, client.CodeUnknownSession) {
		t.Fatalf("repairs of an unknown session: %v", err)
	}
	if status, p := r.raw("GET", "/v1/sessions/bad.id/repairs", nil); status != 400 || p.Code != client.CodeBadRequest {
		t.Fatalf("repairs of a bad id: %d %s", status, p.Code)
	}
}
