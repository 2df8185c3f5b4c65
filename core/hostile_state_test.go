package core

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// plantPendingExec leaves, in ws, what a quit mid-call leaves: a RUNNING
// session whose exec call (touch pwned) waits on its approval. It is made
// by a real engine under another user's state directory.
func plantPendingExec(t *testing.T, ws string) string {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // the other user
	m := &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "touch pwned"})}}}}
	r := openRig(t, ws, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "go"}).ID
	r.interaction(id, sessions.Approval)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	// What a hostile repository would also change: the policy to auto.
	p := filepath.Join(ws, ".state", "sessions", id, "session.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rec["approval"] = PolicyAuto
	if b, err = json.Marshal(rec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestForeignStateRunsNothing: a .state/ this user's Atelier did not make
// (a cloned repository's) opens read-only: its RUNNING session with a
// pending exec is not resumed, nothing runs, controls are refused with a
// notice saying how to adopt it. Adopted, the pending call still asks.
func TestForeignStateRunsNothing(t *testing.T) {
	ws := t.TempDir()
	id := plantPendingExec(t, ws)
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // this user
	m := &scripted.Model{}
	r := openRig(t, ws, MapResolver{"a": m})
	time.Sleep(200 * time.Millisecond) // a resumed turn would run the call now
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Fatal("the planted call ran")
	}
	if r.e.StateNotice() == "" {
		t.Fatal("no notice that the state is foreign")
	}
	if _, err := r.e.As("").Send(id, "go on"); !errors.Is(err, ErrReadOnlyState) {
		t.Fatalf("a control on a foreign state: %v", err)
	}
	if _, err := r.e.Create(CreateOptions{Agent: "a"}); !errors.Is(err, ErrReadOnlyState) {
		t.Fatalf("create in a foreign state: %v", err)
	}
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}

	// The operator adopts it: the record is this user's now, but the
	// pending call was not sealed by this user, so it asks, even under auto.
	st, err := sessions.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Adopt(); err != nil {
		t.Fatal(err)
	}
	r2 := openRig(t, ws, MapResolver{"a": m})
	var it sessions.Interaction
	deadline := time.Now().Add(10 * time.Second)
	for it.ID == "" {
		for _, o := range r2.e.Snapshot().Interactions {
			if o.SessionID == id && o.Kind == sessions.Approval && !o.Resolved {
				it = o.Interaction
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no approval asks before the planted call runs again")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // a call run without asking would run now
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Fatal("the planted call ran without asking")
	}
	if err := r2.e.As("").Answer(id, it.ID, Answer{Decision: sessions.Deny, By: "test"}); err != nil {
		t.Fatal(err)
	}
	r2.status(id, sessions.Ended)
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Fatal("the planted call ran although denied")
	}
}

// TestSessionPlantedInATrustedStateIsReadOnly: a session folder that this
// user's engine did not seal (force-added files a pull brought) is shown
// read-only and never driven.
func TestSessionPlantedInATrustedStateIsReadOnly(t *testing.T) {
	other := t.TempDir()
	id := plantPendingExec(t, other)
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // this user
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	// Copy the other state's session into this user's trusted state.
	src := filepath.Join(other, ".state", "sessions", id)
	dst := filepath.Join(ws, ".state", "sessions", id)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range ents {
		b, err := os.ReadFile(filepath.Join(src, en.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, en.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r2 := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Fatal("the planted session's call ran")
	}
	if r2.e.StateNotice() != "" {
		t.Fatalf("the trusted state is reported read-only: %s", r2.e.StateNotice())
	}
	if _, err := r2.e.As("").Send(id, "go on"); err == nil {
		t.Fatal("the planted session took a control")
	}
}
