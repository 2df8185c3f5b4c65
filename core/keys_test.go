package core

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

func TestKeyedPromptRunsOnce(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Text: "first answer"}, {Text: "second answer"}, {Text: "third"}}}
	r := newRig(t, MapResolver{"a": m})
	rec := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Key: "create-1"})
	if again := r.create(CreateOptions{Agent: "a", AutoStart: true, Key: "create-1"}); again.ID != rec.ID {
		t.Fatalf("create with the same key made %s, want %s", again.ID, rec.ID)
	}
	id := rec.ID
	r.status(id, sessions.Waiting)
	if _, err := r.e.As("").Send(id, "do it", "k1"); err != nil {
		t.Fatal(err)
	}
	r.until("turn 2 done", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 2 && ev.Session.Status == sessions.Waiting
	})
	k, ok, _ := r.e.KeyResult(id, "k1")
	if !ok || k.State != "done" {
		t.Fatalf("key after its turn: %+v %v", k, ok)
	}
	var res PromptResult
	if err := json.Unmarshal(k.Result, &res); err != nil {
		t.Fatalf("recorded result %s: %v", k.Result, err)
	}
	if res.Text != "second answer" || res.Status != sessions.Waiting {
		t.Fatalf("recorded result %+v", res)
	}
	rc, err := r.e.As("").Send(id, "do it", "k1")
	if err != nil || !strings.Contains(rc.When, "already done") {
		t.Fatalf("repeated key: %+v %v", rc, err)
	}
	if n := len(m.Requests()); n != 2 {
		t.Fatalf("the repeated key ran again: %d model calls", n)
	}
	if s, _ := r.e.Session(id); s.Turns != 2 {
		t.Fatalf("turns %d", s.Turns)
	}
}

func TestFork(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Text: "one"}, {Text: "two"}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "task"}).ID
	r.status(id, sessions.Waiting)
	msgs, _, _ := r.e.Transcript(id)
	fork, err := r.e.Fork(id, msgs[0].ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if fork.Status != sessions.Created || fork.ForkOf != id || !strings.HasSuffix(fork.Title, "(fork)") {
		t.Fatalf("fork %+v", fork)
	}
	fm, _, _ := r.e.Transcript(fork.ID)
	if len(fm) != 1 || fm[0].Text() != "task" {
		t.Fatalf("fork history %+v", fm)
	}
	// Starting the fork goes on from the copied task; it is not sent twice.
	if err := r.e.As("").Start(fork.ID); err != nil {
		t.Fatal(err)
	}
	r.status(fork.ID, sessions.Waiting)
	fm, _, _ = r.e.Transcript(fork.ID)
	users := 0
	for _, m := range fm {
		if m.Role == sessions.User {
			users++
		}
	}
	if users != 1 || fm[len(fm)-1].Text() != "two" {
		t.Fatalf("fork after start: %d user messages, last %q", users, fm[len(fm)-1].Text())
	}
	if _, err := r.e.Fork(id, "nope", ""); err == nil {
		t.Fatal("fork at an unknown message")
	}
	if err := r.e.As("").Archive(id, true); err != nil {
		t.Fatal(err)
	}
	if s, _ := r.e.Session(id); !s.Archived {
		t.Fatal("not archived")
	}
}
