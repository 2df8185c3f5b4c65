package api

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/sessions"
)

// TestGrantOfAPrefixOverTheAPI: an allow_session answer may name the
// prefix of the commands it grants; one the command does not start with is
// a bad_answer that resolves nothing, and the grant made lists as
// "exec:ls:*".
func TestGrantOfAPrefixOverTheAPI(t *testing.T) {
	r := newRig(t, Options{})
	ctx := ctxFor(t, 30*time.Second)
	rec, st := startAsking(t, r, ctx)
	var it sessions.Interaction
	for ev := range st.C {
		if ev.Kind == client.KindInteraction && ev.SessionID == rec.ID && ev.Interaction.Kind == sessions.Approval && !ev.Interaction.Resolved {
			it = *ev.Interaction
			break
		}
	}
	if it.Command != "ls -la" {
		t.Fatalf("the demo's first approval: %+v", it)
	}
	// A refused answer is in the controls' audit, refused; the approval
	// stays open, unresolved.
	interactions := func() string {
		data, err := os.ReadFile(filepath.Join(r.ws, sessions.StateDir, "sessions", rec.ID, "interactions.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	before := interactions()
	for _, bad := range []client.Response{
		{Decision: sessions.AllowSession, Prefix: "ls -la -R"},
		{Decision: sessions.AllowSession, Prefix: "l"},
		{Decision: sessions.AllowOnce, Prefix: "ls"},
	} {
		if err := r.c.Respond(ctx, rec.ID, it.ID, bad); !client.IsCode(err, client.CodeBadAnswer) {
			t.Errorf("answer %+v: %v, want %s", bad, err, client.CodeBadAnswer)
		}
	}
	if after := interactions(); after != before {
		t.Fatalf("a refused answer resolved something:\n%s\nwas\n%s", after, before)
	}
	if err := r.c.Respond(ctx, rec.ID, it.ID, client.Response{Decision: sessions.AllowSession, Prefix: "ls"}); err != nil {
		t.Fatal(err)
	}
	if got, err := r.c.Grants(ctx, rec.ID); err != nil || !slices.Equal(got, []string{"exec:ls:*"}) {
		t.Fatalf("grants %q, %v", got, err)
	}
}
