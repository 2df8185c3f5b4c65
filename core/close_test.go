package core

import (
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestCloseAndResumeOfCreatedSessions: closing a session that never ran
// ends it completed with nothing allocated; resume activates one.
func TestCloseAndResumeOfCreatedSessions(t *testing.T) {
	m := &scripted.Model{}
	r := newRig(t, MapResolver{"a": m})
	closed := r.create(CreateOptions{Agent: "a", Instructions: "never runs"}).ID
	if _, err := r.e.As("").CloseSession(closed); err != nil {
		t.Fatal(err)
	}
	s := r.status(closed, sessions.Ended)
	if s.EndReason != sessions.Completed || s.Turns != 0 || len(m.Requests()) != 0 {
		t.Fatalf("closed CREATED session: %+v after %d model calls", s, len(m.Requests()))
	}
	resumed := r.create(CreateOptions{Agent: "a", Instructions: "go"}).ID
	if _, err := r.e.As("").Resume(resumed); err != nil {
		t.Fatal(err)
	}
	if s := r.status(resumed, sessions.Ended); s.EndReason != sessions.Completed || s.Turns != 1 {
		t.Fatalf("resumed CREATED session: %+v", s)
	}
}

// TestOneShotQuestionWaitsThenCloses: a one-shot session whose turn ends on
// a question to the operator waits (question) instead of ending; the reply
// continues it, and closing it ends it completed.
func TestOneShotQuestionWaitsThenCloses(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Text: "which one?", Stop: harness.StopQuestion}, {Text: "ok, the first"}, {Text: "again?", Stop: harness.StopQuestion}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "go"}).ID
	if s := r.status(id, sessions.Waiting); s.WaitReason != sessions.WaitQuestion {
		t.Fatalf("waiting %s", s.WaitReason)
	}
	if _, err := r.e.As("").Send(id, "the first"); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Ended) // the reply's turn ends the one-shot session
	id2 := r.create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "go"}).ID
	r.status(id2, sessions.Waiting)
	if _, err := r.e.As("").CloseSession(id2); err != nil {
		t.Fatalf("close of a one-shot session waiting on a question: %v", err)
	}
	if s := r.status(id2, sessions.Ended); s.EndReason != sessions.Completed {
		t.Fatalf("ended %s", s.EndReason)
	}
}
