package core

import (
	"errors"
	"slices"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// answerNext answers the session's next open approval, which must be of
// command.
func answerNext(t *testing.T, r *rig, id, command string, a Answer) {
	t.Helper()
	it := r.interaction(id, sessions.Approval)
	if it.Command != command {
		t.Fatalf("asked about %q, want %q", it.Command, command)
	}
	if err := r.e.As("").Answer(id, it.ID, a); err != nil {
		t.Fatal(err)
	}
}

func bashAsks(commands ...string) []harness.ApprovalRequest {
	var out []harness.ApprovalRequest
	for i, c := range commands {
		out = append(out, harness.ApprovalRequest{ToolCall: "b" + string(rune('0'+i)), Tool: "Bash", Kind: harness.ActionExec, Command: c})
	}
	return out
}

// TestSessionGrantOfACommandCoversThatCommand is the round's report: "allow
// for the session" on Claude Code's `Bash go test ./...` let the next
// `touch other.txt` run unasked. The grant covers the command shown; the
// activity says when it allowed a call.
func TestSessionGrantOfACommandCoversThatCommand(t *testing.T) {
	a := &scripted.Agent{Script: []scripted.Step{
		{Approvals: bashAsks("go test ./...", "go test ./...", "touch other.txt"), Text: "done"},
	}}
	r := newRig(t, MapResolver{"claude": a})
	id := r.create(CreateOptions{Agent: "claude", AutoStart: true, Mode: sessions.Continuous, Instructions: "test"}).ID
	answerNext(t, r, id, "go test ./...", Answer{Decision: sessions.AllowSession})
	r.until("the grant's notice", func(ev Event) bool {
		return ev.Kind == EvNotice && ev.SessionID == id && ev.Text == "allowed by the session's grant Bash:go test ./..."
	})
	answerNext(t, r, id, "touch other.txt", Answer{Decision: sessions.Deny})
	r.status(id, sessions.Waiting)
	if g, _ := r.e.Grants(id); !slices.Equal(g, []string{"Bash:go test ./..."}) {
		t.Fatalf("grants %v", g)
	}
	// The next engine on the workspace rebuilds the same scope.
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err := Open(r.ws, Options{Agents: MapResolver{"claude": a}, Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	if g, _ := e.Grants(id); !slices.Equal(g, []string{"Bash:go test ./..."}) {
		t.Fatalf("grants after a reload %v", g)
	}
}

// TestSessionGrantOfAPrefix: "commands starting with go test" covers the
// commands that go on from it, not those that chain another command on.
func TestSessionGrantOfAPrefix(t *testing.T) {
	a := &scripted.Agent{Script: []scripted.Step{
		{Approvals: bashAsks("go test ./...", "go test ./core -run X", "go testify", "go test ./... && touch x", "go test ./..."), Text: "done"},
	}}
	r := newRig(t, MapResolver{"claude": a})
	id := r.create(CreateOptions{Agent: "claude", AutoStart: true, Mode: sessions.Continuous, Instructions: "test"}).ID
	it := r.interaction(id, sessions.Approval)
	for _, bad := range []Answer{
		{Decision: sessions.AllowSession, Prefix: "go tes"},
		{Decision: sessions.AllowSession, Prefix: "touch"},
		{Decision: sessions.AllowSession, Prefix: " go test"},
		{Decision: sessions.AllowOnce, Prefix: "go test"},
	} {
		if err := r.e.As("").Answer(id, it.ID, bad); !errors.Is(err, ErrBadAnswer) {
			t.Errorf("answer %+v: %v, want ErrBadAnswer", bad, err)
		}
	}
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowSession, Prefix: "go test"}); err != nil {
		t.Fatal(err)
	}
	answerNext(t, r, id, "go testify", Answer{Decision: sessions.Deny})
	answerNext(t, r, id, "go test ./... && touch x", Answer{Decision: sessions.Deny})
	r.status(id, sessions.Waiting)
	if g, _ := r.e.Grants(id); !slices.Equal(g, []string{"Bash:go test:*"}) {
		t.Fatalf("grants %v", g)
	}
	if err := r.e.As("").Revoke(id, "Bash:go test:*"); err != nil {
		t.Fatal(err)
	}
	if g, _ := r.e.Grants(id); len(g) != 0 {
		t.Fatalf("grants after revoke %v", g)
	}
}

// TestGrantRevokedBeforeScopesStaysRevoked: a log written before grants of
// commands had a scope holds a Bash grant and its revoke by the tool's
// name; the grant, rebuilt as the command's, stays revoked.
func TestGrantRevokedBeforeScopesStaysRevoked(t *testing.T) {
	s := grantSet{}
	s.add(grantOf("Bash", "go test ./...", ""))
	s.add(grantOf("write_file", "", ""))
	s.revoke("Bash")
	if _, ok := s.allowing("Bash", "go test ./..."); ok {
		t.Fatal("a whole-tool revoke left the command's grant")
	}
	if _, ok := s.allowing("write_file", ""); !ok {
		t.Fatal("the revoke took another tool's grant")
	}
}
