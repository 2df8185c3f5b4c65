package core

import (
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

func approvalModel() *scripted.Model {
	return &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "echo ran"})}},
		{Text: "finished"},
	}}
}

// TestApprovalSurvivesQuit: quitting while a session waits on an approval
// keeps the approval open; the next engine resumes the turn on that same
// approval, and answering it runs the tool once.
func TestApprovalSurvivesQuit(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": approvalModel()})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	it := r.interaction(id, sessions.Approval)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}

	m2 := &scripted.Model{Script: []scripted.Step{{Text: "finished"}}}
	r2 := openRig(t, ws, MapResolver{"a": m2})
	acts := r2.e.Actions()
	if len(acts) != 1 || acts[0].Interaction == nil || acts[0].Interaction.ID != it.ID {
		t.Fatalf("after the restart, Action required holds %+v; want the same approval %s", acts, it.ID)
	}
	if err := r2.e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowOnce}); err != nil {
		t.Fatal(err)
	}
	if s := r2.status(id, sessions.Ended); s.EndReason != sessions.Completed {
		t.Fatalf("%+v", s)
	}
	msgs, _, _ := r2.e.Transcript(id)
	ts := tools(msgs)
	if len(ts) != 1 || ts[0].State != sessions.ToolDone || ts[0].Output != "ran\n[exit code 0]" {
		t.Fatalf("tool calls %+v", ts)
	}
}

// TestApprovalAnsweredWhileNobodyRuns: a short command answers the approval
// of a session nobody runs; the next engine that stays applies it.
func TestApprovalAnsweredWhileNobodyRuns(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": approvalModel()})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	it := r.interaction(id, sessions.Approval)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}

	p, err := Open(ws, Options{Passive: true, Agents: MapResolver{"a": approvalModel()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.As("").Answer(id, it.ID, Answer{Decision: sessions.Deny, Message: "not today", By: "cli"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}

	r2 := openRig(t, ws, MapResolver{"a": &scripted.Model{Script: []scripted.Step{{Text: "ok"}}}})
	if s := r2.status(id, sessions.Ended); s.EndReason != sessions.Completed {
		t.Fatalf("%+v", s)
	}
	msgs, _, _ := r2.e.Transcript(id)
	if ts := tools(msgs); len(ts) != 1 || ts[0].State != sessions.ToolDenied {
		t.Fatalf("tool calls %+v", ts)
	}
}
