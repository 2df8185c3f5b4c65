package core

import (
	"os"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/internal/testreq"
	"github.com/atelier-studio/atelier/sessions"
)

// TestFullDiskFailsTheSessionVisibly: when the disk fills mid-turn, the
// session fails (in memory when even that cannot be written), controls are
// refused with the error, closing does not hang, and once space is back the
// turn is not run twice.
func TestFullDiskFailsTheSessionVisibly(t *testing.T) {
	ws := testreq.Tmpfs(t, "4m")
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{{Text: "the final answer", Gate: g}}}
	e, err := Open(ws, Options{Agents: MapResolver{"a": m}, Workers: 2, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	_, sub := e.Subscribe()
	r := &rig{t: t, ws: ws, e: e, sub: sub}
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "go"}).ID
	r.streaming(id)
	filler := testreq.FillDisk(t, ws)
	close(g)
	s := r.status(id, sessions.Ended)
	if s.EndReason != sessions.Failed || !strings.Contains(s.Error, "no space") {
		t.Fatalf("after a full disk: %s %s %q", s.Status, s.EndReason, s.Error)
	}
	if _, err := e.As("").Send(id, "more"); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("a control on the failed session: %v", err)
	}
	if err := e.Close(); err != nil && !strings.Contains(err.Error(), "no space") {
		t.Fatalf("close: %v", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	m2 := &scripted.Model{Script: []scripted.Step{{Text: "resumed"}}}
	r2 := openRig(t, ws, MapResolver{"a": m2})
	r2.status(id, sessions.Waiting)
	msgs, _, err := r2.e.Transcript(id)
	if err != nil {
		t.Fatal(err)
	}
	finals := 0
	for _, msg := range msgs {
		if msg.Role == sessions.Assistant && strings.Contains(msg.Text(), "the final answer") {
			finals++
		}
	}
	if finals > 1 {
		t.Fatalf("the final answer is in the transcript %d times", finals)
	}
}

// TestTurnRecordedCompleteIsNotRunAgain: a RUNNING record whose turn the
// audit log says completed (the record's update was lost) is settled at
// open, not run again.
func TestTurnRecordedCompleteIsNotRunAgain(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "go"}).ID
	r.status(id, sessions.Ended)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := sessions.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	en, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	rec := *en.Session
	rec.Status, rec.SubState, rec.EndReason = sessions.Running, sessions.Active, ""
	if err := st.Save(&rec); err != nil {
		t.Fatal(err)
	}
	m := &scripted.Model{}
	r2 := openRig(t, ws, MapResolver{"a": m})
	s := r2.status(id, sessions.Ended)
	if s.EndReason != sessions.Completed || len(m.Requests()) != 0 {
		t.Fatalf("reopened: %s %s after %d model calls", s.Status, s.EndReason, len(m.Requests()))
	}
}

// TestEndedSessionGetsItsPendingCommit: a session that ended but whose
// turn's commit was never written (a crash in between) gets it when the
// next engine opens the workspace.
func TestEndedSessionGetsItsPendingCommit(t *testing.T) {
	ws := t.TempDir()
	r := historyRig(t, ws, MapResolver{"a": &scripted.Model{}})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "go"}).ID
	r.status(id, sessions.Ended)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	before := turnCommits(t, r.e, id)[1]
	// What a crash between the end and the commit leaves: the flag set,
	// no commit (we drop the commit's effect by setting the flag again).
	st, err := sessions.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	en, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	rec := *en.Session
	rec.CommitPending = true
	if err := st.Save(&rec); err != nil {
		t.Fatal(err)
	}
	r2 := historyRig(t, ws, MapResolver{"a": &scripted.Model{}})
	if err := r2.e.Close(); err != nil { // waits for queued commits
		t.Fatal(err)
	}
	if got := turnCommits(t, r2.e, id)[1]; got != before+1 {
		t.Fatalf("turn 1 commits: %d before, %d after reopening", before, got)
	}
	s, _ := r2.e.Session(id)
	if s.CommitPending {
		t.Fatal("the flag is still set after the commit")
	}
}
