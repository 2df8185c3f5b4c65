package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

func TestPauseAtStepBoundaryThenResume(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{
		{Text: "step one", Calls: []harness.ToolCall{toolCall("c1", "list", map[string]any{})}, Gate: g},
		{Text: "finished"},
	}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.streaming(id)
	rc, err := r.e.As("").Pause(id)
	if err != nil || rc.When != "at the next step" {
		t.Fatalf("pause: %+v %v", rc, err)
	}
	close(g)
	r.status(id, sessions.Paused)
	if n := len(m.Requests()); n != 1 {
		t.Fatalf("paused session made %d model calls, want 1", n)
	}
	if _, err := r.e.As("").Resume(id); err != nil {
		t.Fatal(err)
	}
	s := r.status(id, sessions.Ended)
	if s.EndReason != sessions.Completed {
		t.Fatalf("ended %s", s.EndReason)
	}
	msgs, _, _ := r.e.Transcript(id)
	if ts := tools(msgs); len(ts) != 1 || ts[0].State != sessions.ToolDone {
		t.Fatalf("tool calls %+v", ts)
	}
}

func TestPauseSupersededWhenTurnEndsFirst(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{{Text: "only step", Gate: g}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous}).ID
	r.streaming(id)
	if _, err := r.e.As("").Pause(id); err != nil {
		t.Fatal(err)
	}
	close(g)
	r.until("superseded notice", func(ev Event) bool {
		return ev.Kind == EvNotice && strings.Contains(ev.Text, "superseded")
	})
	s := r.status(id, sessions.Waiting)
	if s.WaitReason != sessions.WaitAwaitingInput {
		t.Fatalf("wait reason %s", s.WaitReason)
	}
	ctls, _, _ := r.e.store.Log(id).Controls()
	found := false
	for _, c := range ctls {
		if c.Kind == sessions.CtlPause && c.Outcome == "superseded" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no superseded pause in controls.jsonl: %+v", ctls)
	}
}

func TestStopInterruptsToolAndWaits(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "sleep 30"})}},
	}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto}).ID
	r.until("exec running", func(ev Event) bool {
		if ev.Kind != EvMessage {
			return false
		}
		for _, p := range ev.Message.Parts {
			if p.Tool != nil && p.Tool.State == sessions.ToolRunning {
				return true
			}
		}
		return false
	})
	if _, err := r.e.As("").Stop(id); err != nil {
		t.Fatal(err)
	}
	s := r.status(id, sessions.Waiting)
	if s.WaitReason != sessions.WaitAwaitingInput {
		t.Fatalf("wait reason %s", s.WaitReason)
	}
	msgs, _, _ := r.e.Transcript(id)
	ts := tools(msgs)
	if len(ts) != 1 || ts[0].State != sessions.ToolInterrupted || !strings.Contains(ts[0].Output, "interrupted") {
		t.Fatalf("tool after stop: %+v", ts)
	}
	// The operator decides what next: a new instruction runs a new turn.
	if _, err := r.e.As("").Send(id, "try again"); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Ended)
}

func TestCancelMidApprovalLeavesNoDanglingCall(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "write_file", map[string]any{"path": "a.txt", "content": "x"})}},
	}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	it := r.interaction(id, sessions.Approval)
	if !strings.Contains(it.Diff, "+x") || it.Path != "a.txt" {
		t.Fatalf("approval shows %+v", it)
	}
	r.sub2(id, sessions.Parked)
	if _, err := r.e.As("").Cancel(id); err != nil {
		t.Fatal(err)
	}
	s := r.status(id, sessions.Ended)
	if s.EndReason != sessions.Cancelled {
		t.Fatalf("end reason %s", s.EndReason)
	}
	msgs, _, _ := r.e.Transcript(id)
	if ts := tools(msgs); len(ts) != 1 || ts[0].State != sessions.ToolInterrupted {
		t.Fatalf("tool after cancel: %+v", ts)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "a.txt")); err == nil {
		t.Fatal("cancelled write happened")
	}
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowOnce}); !errors.Is(err, ErrResolved) {
		t.Fatalf("answer after cancel: %v", err)
	}
}

func TestApprovalsAllowDenyAndSessionGrant(t *testing.T) {
	call := func(id, cmd string) harness.ToolCall {
		return toolCall(id, "exec", map[string]any{"command": cmd})
	}
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{call("c1", "echo one")}},
		{Calls: []harness.ToolCall{call("c2", "echo two")}},
		{Calls: []harness.ToolCall{call("c3", "echo two")}},
		{Text: "end"},
	}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	it := r.interaction(id, sessions.Approval)
	if it.Command != "echo one" {
		t.Fatalf("approval for %q", it.Command)
	}
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.Deny, Message: "not now"}); err != nil {
		t.Fatal(err)
	}
	it = r.interaction(id, sessions.Approval)
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowSession}); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Ended)
	msgs, _, _ := r.e.Transcript(id)
	ts := tools(msgs)
	if len(ts) != 3 {
		t.Fatalf("tools %+v", ts)
	}
	if ts[0].State != sessions.ToolDenied || !strings.Contains(ts[0].Output, "not now") {
		t.Errorf("denied call: %+v", ts[0])
	}
	if ts[1].State != sessions.ToolDone || !strings.Contains(ts[1].Output, "two") {
		t.Errorf("allowed call: %+v", ts[1])
	}
	if ts[2].State != sessions.ToolDone {
		t.Errorf("granted call: %+v", ts[2])
	}
	grants, _ := r.e.Grants(id)
	if len(grants) != 1 || grants[0] != "exec:echo two" {
		t.Fatalf("grants %v", grants)
	}
	if err := r.e.As("").Revoke(id, "exec:echo two"); err != nil {
		t.Fatal(err)
	}
	if g, _ := r.e.Grants(id); len(g) != 0 {
		t.Fatalf("grant survived revoke: %v", g)
	}
}

func TestSteerDeliveredAtNextStep(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "list", map[string]any{})}, Gate: g},
		{Text: "ok"},
	}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Instructions: "task"}).ID
	r.streaming(id)
	rc, err := r.e.As("").Steer(id, "use tabs")
	if err != nil || rc.When != "at the next step" {
		t.Fatalf("steer %+v %v", rc, err)
	}
	if q, _ := r.e.Queue(id); len(q) != 1 {
		t.Fatalf("queue %+v", q)
	}
	close(g)
	r.status(id, sessions.Ended)
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d steps", len(reqs))
	}
	h := reqs[1].History
	last := h[len(h)-1]
	if last.Role != sessions.User || last.Text() != "use tabs" {
		t.Fatalf("second step's history ends with %+v", last)
	}
	for _, m := range reqs[0].History {
		if m.Text() == "use tabs" {
			t.Fatal("steer reached the step before the boundary")
		}
	}
}

// TestSteerPassesAQueuedPrompt: a steer sent while a prompt is queued
// goes at the turn's next step, as its receipt says, not behind the
// prompt a whole turn later; the prompt still runs the next turn.
func TestSteerPassesAQueuedPrompt(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "list", map[string]any{})}, Gate: g},
		{Text: "first done"},
		{Text: "second done"},
	}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "task"}).ID
	r.streaming(id)
	if rc, err := r.e.As("").Send(id, "then this"); err != nil || !strings.HasPrefix(rc.When, "queued") {
		t.Fatalf("send %+v %v", rc, err)
	}
	rc, err := r.e.As("").Steer(id, "use tabs")
	if err != nil || rc.When != "at the next step" {
		t.Fatalf("steer %+v %v", rc, err)
	}
	close(g)
	r.until("turn 2", func(ev Event) bool { return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 2 })
	r.status(id, sessions.Waiting)
	reqs := m.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d steps, want 3", len(reqs))
	}
	h := reqs[1].History
	if last := h[len(h)-1]; last.Role != sessions.User || last.Text() != "use tabs" {
		t.Fatalf("the first turn's second step ends with %+v: the steer waited", last)
	}
	h = reqs[2].History
	if last := h[len(h)-1]; last.Role != sessions.User || last.Text() != "then this" {
		t.Fatalf("the second turn starts with %+v, want the queued prompt", last)
	}
}

func TestContinuousQueueAndClose(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{{Text: "first", Gate: g}, {Text: "second"}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous}).ID
	r.sub2(id, sessions.Active)
	rc, err := r.e.As("").Send(id, "then this")
	if err != nil || !strings.HasPrefix(rc.When, "queued") {
		t.Fatalf("send %+v %v", rc, err)
	}
	var te *TransitionError
	if _, err := r.e.As("").CloseSession(id); !errors.As(err, &te) {
		t.Fatalf("close during a turn: %v", err)
	}
	close(g)
	// The queued prompt runs the second turn, then the session waits.
	r.until("turn 2", func(ev Event) bool { return ev.Kind == EvSession && ev.SessionID == id && ev.Session.Turns == 2 })
	r.status(id, sessions.Waiting)
	if _, err := r.e.As("").CloseSession(id); err != nil {
		t.Fatal(err)
	}
	s := r.status(id, sessions.Ended)
	if s.EndReason != sessions.Completed || s.Turns != 2 {
		t.Fatalf("closed: %+v", s)
	}
}

func TestQuestionStopAndStopLimitWaitReasons(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Text: "which one?", Stop: harness.StopQuestion}}}
	r := newRig(t, MapResolver{"a": m, "b": &scripted.Model{Script: []scripted.Step{{Text: "long", Stop: harness.StopMaxTokens}}}})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	if s := r.status(id, sessions.Waiting); s.WaitReason != sessions.WaitQuestion {
		t.Fatalf("reason %s", s.WaitReason)
	}
	id2 := r.create(CreateOptions{Agent: "b", AutoStart: true}).ID
	if s := r.status(id2, sessions.Waiting); s.WaitReason != sessions.WaitStopLimit {
		t.Fatalf("reason %s", s.WaitReason)
	}
}

func TestHarnessErrorFailsSession(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{{Text: "partial", Err: errors.New("model exploded")}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	s := r.status(id, sessions.Ended)
	if s.EndReason != sessions.Failed || !strings.Contains(s.Error, "model exploded") {
		t.Fatalf("%+v", s)
	}
}

func TestDeleteRunningSession(t *testing.T) {
	m, _ := gated()
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.sub2(id, sessions.Active)
	if err := r.e.Delete(id); err != nil {
		t.Fatal(err)
	}
	r.until("force_deleted", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && ev.Session.EndReason == sessions.ForceDeleted
	})
	r.until("removed", func(ev Event) bool { return ev.Kind == EvRemoved && ev.SessionID == id })
	if _, err := os.Stat(r.e.store.Dir(id)); !os.IsNotExist(err) {
		t.Fatalf("folder still there: %v", err)
	}
	if _, err := r.e.Session(id); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("deleted session: %v", err)
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	r := newRig(t, MapResolver{"a": &scripted.Model{}})
	if _, err := r.e.As("").Pause("nope"); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("unknown session: %v", err)
	}
	id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
	r.status(id, sessions.Ended)
	if err := r.e.As("").Answer(id, "nope", Answer{Text: "x"}); !errors.Is(err, ErrUnknownInteraction) {
		t.Fatalf("unknown interaction: %v", err)
	}
	if _, err := r.e.Create(CreateOptions{Agent: "ghost"}); !errors.Is(err, ErrUnknownAgent) {
		t.Fatalf("unknown agent: %v", err)
	}
	if _, err := r.e.Create(CreateOptions{Agent: "a", Mode: "sometimes"}); err == nil {
		t.Fatal("bad mode accepted")
	}
	before, _ := os.ReadFile(filepath.Join(r.e.store.Dir(id), "session.json"))
	if _, err := r.e.As("").Steer(id, "more"); err == nil {
		t.Fatal("steer of an ended session accepted")
	}
	after, _ := os.ReadFile(filepath.Join(r.e.store.Dir(id), "session.json"))
	if string(before) != string(after) {
		t.Fatal("refused control changed session.json")
	}
}

func TestReadOnlySessionCannotWriteOrExecLocally(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{
			toolCall("c1", "write_file", map[string]any{"path": "a.txt", "content": "x"}),
			toolCall("c2", "exec", map[string]any{"command": "touch b.txt"}),
		}},
	}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Access: sessions.ReadOnly, Approval: PolicyAuto}).ID
	r.status(id, sessions.Ended)
	msgs, _, _ := r.e.Transcript(id)
	ts := tools(msgs)
	if ts[0].State != sessions.ToolDenied {
		t.Errorf("write in read-only session: %+v", ts[0])
	}
	if ts[1].State != sessions.ToolError || !strings.Contains(ts[1].Output, "read-only") {
		t.Errorf("exec in read-only session: %+v", ts[1])
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(r.ws, f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
}

func TestProtectedPathAlwaysAsks(t *testing.T) {
	m := &scripted.Model{Script: []scripted.Step{
		{Calls: []harness.ToolCall{toolCall("c1", "write_file", map[string]any{"path": ".atelier.toml", "content": "x"})}},
	}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto}).ID
	it := r.interaction(id, sessions.Approval)
	if it.Path != ".atelier.toml" {
		t.Fatalf("approval %+v", it)
	}
	if err := r.e.As("").Answer(id, it.ID, Answer{Decision: sessions.Deny}); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Ended)
}
