package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
)

// historyRig is a rig whose engine keeps a real git history.
func historyRig(t *testing.T, ws string, agents MapResolver) *rig {
	t.Helper()
	e, err := Open(ws, Options{Agents: agents, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, sub := e.Subscribe()
	r := &rig{t: t, ws: ws, e: e, sub: sub}
	t.Cleanup(func() { _ = e.Close() })
	return r
}

// turnCommits returns, per turn number, how many history commits name it.
func turnCommits(t *testing.T, e *Engine, id string) map[int]int {
	t.Helper()
	h := e.hist.workspace()
	if h == nil {
		t.Fatal("no history")
	}
	log, err := h.Log(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, c := range log {
		if c.Kind == history.KindTurn && c.SessionID == id {
			out[c.Turn]++
		}
	}
	return out
}

// auditTurns returns the turn numbers turns.jsonl names, and its lines.
func auditTurns(t *testing.T, e *Engine, id string) (map[int]bool, []sessions.TurnEvent) {
	t.Helper()
	evs, _, err := e.store.Log(id).Turns()
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]bool{}
	for _, ev := range evs {
		if ev.Turn > 0 && ev.Kind != "exec" {
			out[ev.Turn] = true
		}
	}
	return out, evs
}

// waitCommits waits until every turn of the audit log has its commit.
func waitCommits(t *testing.T, r *rig, id string) map[int]int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		turns, _ := auditTurns(t, r.e, id)
		got := turnCommits(t, r.e, id)
		done := len(turns) > 0
		for n := range turns {
			if got[n] == 0 {
				done = false
			}
		}
		if done {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("turns %v, commits %v", turns, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestControlPairsAtGate sends every pair of turn-ending controls while a
// turn is held at a gate: the stronger one decides, whichever came first.
func TestControlPairsAtGate(t *testing.T) {
	type ctl string
	send := func(e *Engine, id string, c ctl) {
		switch c {
		case "pause":
			_, _ = e.As("").Pause(id)
		case "stop":
			_, _ = e.As("").Stop(id)
		case "cancel":
			_, _ = e.As("").Cancel(id)
		}
	}
	want := func(a, b ctl) (sessions.Status, string) {
		switch {
		case a == "cancel" || b == "cancel":
			return sessions.Ended, string(sessions.Cancelled)
		case a == "stop" || b == "stop":
			return sessions.Waiting, string(sessions.WaitAwaitingInput)
		}
		return sessions.Paused, ""
	}
	all := []ctl{"pause", "stop", "cancel"}
	for _, a := range all {
		for _, b := range all {
			t.Run(fmt.Sprintf("%s_then_%s", a, b), func(t *testing.T) {
				g := make(chan struct{})
				m := &scripted.Model{Script: []scripted.Step{
					{Text: "one", Calls: []harness.ToolCall{toolCall("c1", "list", map[string]any{})}, Gate: g},
					{Text: "two"},
				}}
				r := newRig(t, MapResolver{"a": m})
				id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous}).ID
				// A queued prompt must not start a turn after a cancel. (After
				// a stop it would rightly start the next turn, so it is only
				// queued where a cancel is in the pair.)
				if a == "cancel" || b == "cancel" {
					if _, err := r.e.As("").Send(id, "next"); err != nil {
						t.Fatal(err)
					}
				}
				r.streaming(id)
				send(r.e, id, a)
				send(r.e, id, b)
				close(g)
				st, why := want(a, b)
				r.status(id, st)
				time.Sleep(50 * time.Millisecond) // a wrong next turn would start now
				s, _ := r.e.Session(id)
				if s.Status != st || string(s.WaitReason)+string(s.EndReason) != why {
					t.Fatalf("%s then %s: %s %s%s, want %s %s", a, b, s.Status, s.WaitReason, s.EndReason, st, why)
				}
			})
		}
	}
	t.Run("cancel_then_shutdown", func(t *testing.T) {
		g := make(chan struct{})
		m := &scripted.Model{Script: []scripted.Step{{Text: "one", Gate: g}}}
		ws := t.TempDir()
		r := openRig(t, ws, MapResolver{"a": m})
		id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous}).ID
		r.streaming(id)
		if _, err := r.e.As("").Cancel(id); err != nil {
			t.Fatal(err)
		}
		if err := r.e.Close(); err != nil {
			t.Fatal(err)
		}
		en, err := sessions.Open(ws)
		if err != nil {
			t.Fatal(err)
		}
		got, err := en.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Session.Status != sessions.Ended || got.Session.EndReason != sessions.Cancelled {
			t.Fatalf("an acknowledged cancel was overtaken by the shutdown: %s %s", got.Session.Status, got.Session.EndReason)
		}
	})
}

// TestStatusMovesOutsideTheTableRefused: the one function that changes a
// status refuses what the lifecycle table does not allow, and says so.
func TestStatusMovesOutsideTheTableRefused(t *testing.T) {
	r := newRig(t, MapResolver{"a": &scripted.Model{}})
	id := r.create(CreateOptions{Agent: "a"}).ID
	r.e.mu.Lock()
	l := r.e.live[id]
	ok := l.setStatusLocked(sessions.Paused) // CREATED → PAUSED is not a move
	st := l.rec.Status
	r.e.mu.Unlock()
	if ok || st != sessions.Created {
		t.Fatalf("CREATED → PAUSED accepted (%v, now %s)", ok, st)
	}
	r.until("a notice of the refused move", func(ev Event) bool {
		return ev.Kind == EvNotice && ev.SessionID == id
	})
}

// TestChainedTurnsEachCommitOnce: two prompts queued behind a running turn;
// every turn number of the audit log has exactly one commit.
func TestChainedTurnsEachCommitOnce(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{{Text: "first", Gate: g}, {Text: "second"}, {Text: "third"}}}
	r := historyRig(t, t.TempDir(), MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "go"}).ID
	r.streaming(id)
	for _, p := range []string{"p2", "p3"} {
		if _, err := r.e.As("").Send(id, p); err != nil {
			t.Fatal(err)
		}
	}
	close(g)
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, _ := r.e.Session(id)
		if s.Turns == 3 && s.Status == sessions.Waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %+v", s)
		}
		time.Sleep(10 * time.Millisecond)
	}
	got := waitCommits(t, r, id)
	for n := 1; n <= 3; n++ {
		if got[n] != 1 {
			t.Fatalf("turn %d has %d commits (all: %v)", n, got[n], got)
		}
	}
	if len(got) != 3 {
		t.Fatalf("commits for turns %v, want 1..3", got)
	}
}

// TestPausedTurnOneCommit: a turn paused mid-way and resumed is one turn
// with one commit; cancelling a paused turn commits it at once.
func TestPausedTurnOneCommit(t *testing.T) {
	for _, end := range []string{"resume", "cancel"} {
		t.Run(end, func(t *testing.T) {
			g := make(chan struct{})
			m := &scripted.Model{Script: []scripted.Step{
				{Text: "one", Calls: []harness.ToolCall{toolCall("c1", "write_file", map[string]any{"path": "a.txt", "content": "x"})}, Gate: g},
				{Text: "two"},
			}}
			r := historyRig(t, t.TempDir(), MapResolver{"a": m})
			id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto, Instructions: "go"}).ID
			r.streaming(id)
			if _, err := r.e.As("").Pause(id); err != nil {
				t.Fatal(err)
			}
			close(g)
			r.status(id, sessions.Paused)
			if end == "resume" {
				if _, err := r.e.As("").Resume(id); err != nil {
					t.Fatal(err)
				}
			} else {
				// The operator cancels some time after the pause: a commit
				// made at the pause (the old, wrong behaviour) would have
				// landed before ENDED, and the wait below would not see it.
				time.Sleep(300 * time.Millisecond)
				if _, err := r.e.As("").Cancel(id); err != nil {
					t.Fatal(err)
				}
			}
			r.status(id, sessions.Ended)
			// The turn's commit comes once it really ended: after ENDED.
			ev := r.until("the turn's commit", func(ev Event) bool { return ev.Kind == EvCommit && ev.SessionID == id })
			if ev.Turn != 1 {
				t.Fatalf("commit of turn %d", ev.Turn)
			}
			// Close waits for every queued commit: then count them all.
			if err := r.e.Close(); err != nil {
				t.Fatal(err)
			}
			if got := turnCommits(t, r.e, id); got[1] != 1 || len(got) != 1 {
				t.Fatalf("commits %v, want one of turn 1", got)
			}
			// The one commit records how the turn ended.
			out, err := exec.Command("git", "--git-dir", filepath.Join(r.ws, ".state", "git"),
				"show", ev.Text+":.state/sessions/"+id+"/turns.jsonl").Output()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"resume": `"kind":"complete"`, "cancel": `"kind":"cancel"`}[end]
			if !strings.Contains(string(out), want) {
				t.Fatalf("the turn's commit does not record its end (%s):\n%s", want, out)
			}
		})
	}
}

// TestQueuedModelChangeAppliesAfterTheTurnBeforeIt: a model change queued
// behind prompt A takes effect after A's turn, not at A's first step.
func TestQueuedModelChangeAppliesAfterTheTurnBeforeIt(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{{Text: "task", Gate: g}, {Text: "A"}, {Text: "B"}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "go"}).ID
	r.streaming(id)
	if _, err := r.e.As("").Send(id, "A"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.As("").SetModel(id, "m2"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.As("").Send(id, "B"); err != nil {
		t.Fatal(err)
	}
	close(g)
	deadline := time.Now().Add(10 * time.Second)
	for len(m.Requests()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d model calls", len(m.Requests()))
		}
		time.Sleep(5 * time.Millisecond)
	}
	reqs := m.Requests()
	if reqs[1].Model == "m2" {
		t.Fatal("the model change queued after A applied at A's first step")
	}
	if reqs[2].Model != "m2" {
		t.Fatalf("B ran with model %q, want m2", reqs[2].Model)
	}
}

// TestQueuedKeyedPromptsEachRecordTheirOwnResult and a repeated key
// returns the recorded result; other work under the same key conflicts.
func TestQueuedKeyedPromptsEachRecordTheirOwnResult(t *testing.T) {
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{{Text: "task done", Gate: g}, {Text: "reply one"}, {Text: "reply two"}}}
	r := newRig(t, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "go"}).ID
	r.streaming(id)
	if _, err := r.e.As("").Send(id, "one", "k1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.As("").Send(id, "two", "k2"); err != nil {
		t.Fatal(err)
	}
	close(g)
	result := func(key string) PromptResult {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			k, ok, err := r.e.KeyResult(id, key)
			if err != nil {
				t.Fatal(err)
			}
			if ok && k.State == sessions.KeyDone {
				var res PromptResult
				if err := json.Unmarshal(k.Result, &res); err != nil {
					t.Fatal(err)
				}
				return res
			}
			if time.Now().After(deadline) {
				t.Fatalf("key %s: %+v", key, k)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if res := result("k1"); res.Text != "reply one" || res.Outcome != "complete" || res.Turn != 2 {
		t.Fatalf("k1 recorded %+v", res)
	}
	if res := result("k2"); res.Text != "reply two" || res.Turn != 3 {
		t.Fatalf("k2 recorded %+v", res)
	}
	rc, err := r.e.As("").Send(id, "one", "k1")
	if err != nil || rc.Key == nil || rc.Key.State != sessions.KeyDone {
		t.Fatalf("repeated key: %+v %v", rc, err)
	}
	if s, _ := r.e.Session(id); s.Turns != 3 {
		t.Fatalf("a repeated key ran a new turn: %d turns", s.Turns)
	}
	if _, err := r.e.As("").Send(id, "something else", "k1"); !errorsIs(err, ErrKeyConflict) {
		t.Fatalf("same key, other prompt: %v", err)
	}
	keys, err := r.e.Keys(id)
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys %+v %v", keys, err)
	}
	if err := r.e.ForgetKey(id, "k1"); err == nil {
		t.Fatal("a done key was forgotten")
	}
}

// TestStartedKeyUncertainAfterCrash: a keyed exec whose result was never
// recorded is uncertain on the next open; the operator can forget it.
func TestStartedKeyUncertainAfterCrash(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	id := r.create(CreateOptions{Agent: "a", Mode: sessions.Continuous}).ID
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	// What a kill -9 between the start of a keyed operation and its result
	// leaves: the key's "started" line alone.
	st, err := sessions.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Log(id).AppendKey(sessions.KeyRecord{Key: "k", Op: "exec", State: sessions.KeyStarted, Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	r2 := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	k, ok, err := r2.e.KeyResult(id, "k")
	if err != nil || !ok || k.State != sessions.KeyUncertain {
		t.Fatalf("after the crash: %+v %v %v", k, ok, err)
	}
	if _, err := r2.e.Exec(context.Background(), id, ExecCommand{Shell: "true", Key: "k"}); err == nil {
		t.Fatal("an uncertain key ran again")
	}
	if err := r2.e.ForgetKey(id, "k"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := r2.e.KeyResult(id, "k"); ok {
		t.Fatal("the key is still there after forget")
	}
}

// TestOperatorEditsAreNotBlamedOnTheNextTurn: a file made outside any turn
// is committed as the operator's before the next turn starts.
func TestOperatorEditsAreNotBlamedOnTheNextTurn(t *testing.T) {
	ws := t.TempDir()
	m := &scripted.Model{Script: []scripted.Step{{Text: "first"}, {Text: "second"}}}
	r := historyRig(t, ws, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous, Instructions: "go"}).ID
	r.status(id, sessions.Waiting)
	waitCommits(t, r, id)
	if err := os.WriteFile(filepath.Join(ws, "mine.txt"), []byte("the operator's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.As("").Send(id, "again"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for waitCommits(t, r, id)[2] == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no commit of turn 2")
		}
	}
	c, err := r.e.hist.workspace().Blame(context.Background(), "mine.txt")
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != history.KindOperator || c.SessionID != "" {
		t.Fatalf("mine.txt blamed on %s %s turn %d", c.Kind, c.SessionID, c.Turn)
	}
}

// TestTurnWritesSurviveARestart: a turn that wrote a file, was interrupted
// by a quit and finished in the next engine commits that file.
func TestTurnWritesSurviveARestart(t *testing.T) {
	ws := t.TempDir()
	g := make(chan struct{})
	m := &scripted.Model{Script: []scripted.Step{
		{Text: "writing", Calls: []harness.ToolCall{toolCall("c1", "write_file", map[string]any{"path": "turn.txt", "content": "x"})}},
		{Text: "thinking", Gate: g},
	}}
	r := historyRig(t, ws, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto, Instructions: "go"}).ID
	r.until("the write noted in the record", func(ev Event) bool {
		return ev.Kind == EvSession && ev.SessionID == id && len(ev.Session.TurnWrote) == 1
	})
	r.streaming(id)
	if err := r.e.Close(); err != nil {
		t.Fatal(err)
	}
	r2 := historyRig(t, ws, MapResolver{"a": &scripted.Model{Script: []scripted.Step{{Text: "finished"}}}})
	r2.status(id, sessions.Ended)
	r2.until("the turn's commit", func(ev Event) bool { return ev.Kind == EvCommit && ev.SessionID == id })
	log, err := r2.e.hist.workspace().Log(context.Background(), id)
	if err != nil || len(log) == 0 {
		t.Fatalf("log %v %v", log, err)
	}
	changes, err := r2.e.hist.workspace().Changes(context.Background(), log[0].Hash)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ch := range changes {
		found = found || ch.Path == "turn.txt"
	}
	if !found {
		t.Fatalf("the turn's commit %s lacks turn.txt: %+v", log[0].Hash, changes)
	}
}

func errorsIs(err, target error) bool { return err != nil && errors.Is(err, target) }
