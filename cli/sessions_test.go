package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// owner hosts the workspace's engine in the test's process, as an
// in-process studio does, with the fast demo, serving its socket: the
// commands under test reach it through the host's API. It returns the
// engine, which the host closes when the test ends.
func owner(t *testing.T, ws string) *core.Engine {
	t.Helper()
	return ownerWith(t, ws, &harness.Demo{Wait: 20 * time.Millisecond})
}

// ownerWith is owner with its own demo agent.
func ownerWith(t *testing.T, ws string, demo *harness.Demo) *core.Engine {
	t.Helper()
	s := &streams{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}, env: env{getenv: os.Getenv},
		demo: demo}
	h, err := s.hostInProcess(context.Background(), ws, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.stop(); err != nil {
			t.Error(err)
		}
	})
	return h.eng
}

func jsonOut[T any](t *testing.T, r result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.out)
	}
	return v
}

// TestSessionLifecycle walks one session through the short commands:
// create without starting, a start recorded for later, start --wait, show,
// archive, fork, refused controls and delete.
func TestSessionLifecycle(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	rec := jsonOut[sessions.Session](t, cli(t, "sessions", "create", "-w", ws, "--no-start", "--json", "--title", "note", "write a hello note").want(t, ExitOK))
	if rec.Status != sessions.Created || rec.AutoStart || rec.Title != "note" {
		t.Fatalf("created %+v", rec)
	}
	id := rec.ID
	rows := jsonOut[[]sessionRow](t, cli(t, "sessions", "-w", ws, "--json").want(t, ExitOK))
	if len(rows) != 1 || rows[0].ID != id {
		t.Fatalf("list %+v", rows)
	}

	// A short command records the start; nobody runs the session yet.
	r := cli(t, "sessions", "start", id[:16], "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "recorded") || record(t, ws, id).Status != sessions.Created {
		t.Fatalf("start without an owner: %q, %s", r.out, record(t, ws, id).Status)
	}
	// start --wait runs it here, to its end.
	r = fast(t, "sessions", "start", id, "-w", ws, "--wait", "--approve", "auto").want(t, ExitOK)
	if !strings.Contains(r.out, "That is the whole demo.") {
		t.Errorf("start --wait printed:\n%s", r.out)
	}

	r = cli(t, "sessions", "show", id, "-w", ws).want(t, ExitOK)
	for _, want := range []string{"you: write a hello note", "▸ exec", "▸ write_file", "ENDED (completed)", "── turn 1 ──"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("show does not say %q:\n%s", want, r.out)
		}
	}
	d := jsonOut[sessionDetail](t, cli(t, "sessions", "show", id, "-w", ws, "--json").want(t, ExitOK))
	if d.Session.ID != id || len(d.Messages) < 3 || d.Owner != nil {
		t.Fatalf("show --json: %d messages, owner %+v", len(d.Messages), d.Owner)
	}

	cli(t, "sessions", "archive", id, "-w", ws).want(t, ExitOK)
	if rows := jsonOut[[]sessionRow](t, cli(t, "sessions", "-w", ws, "--json")); len(rows) != 0 {
		t.Errorf("an archived session is listed: %+v", rows)
	}
	if rows := jsonOut[[]sessionRow](t, cli(t, "sessions", "-w", ws, "--json", "--all")); len(rows) != 1 || !rows[0].Archived {
		t.Errorf("--all: %+v", rows)
	}
	cli(t, "sessions", "unarchive", id, "-w", ws).want(t, ExitOK)

	r = cli(t, "sessions", "fork", id, "-w", ws, "--at", d.Messages[1].ID).want(t, ExitOK)
	forked := strings.TrimSpace(r.out)
	fd := jsonOut[sessionDetail](t, cli(t, "sessions", "show", forked, "-w", ws, "--json"))
	if fd.Session.ForkOf != id || len(fd.Messages) != 2 || fd.Session.Status != sessions.Created {
		t.Errorf("fork: %+v with %d messages", fd.Session, len(fd.Messages))
	}
	cli(t, "sessions", "fork", id, "-w", ws, "--at", "nosuchmessage").want(t, ExitUsage)

	// What the lifecycle forbids is refused, naming the status.
	r = cli(t, "sessions", "pause", id, "-w", ws).want(t, ExitUsage)
	if !strings.Contains(r.err, "ENDED") || !strings.Contains(r.err, "cannot pause") {
		t.Errorf("pause of an ended session: %s", r.err)
	}
	cli(t, "sessions", "pause", "nosuchsession", "-w", ws).want(t, ExitUsage)
	r = cli(t, "sessions", "show", "2", "-w", ws).want(t, ExitUsage)
	if !strings.Contains(r.err, "ambiguous") {
		t.Errorf("a prefix of two sessions: %s", r.err)
	}

	cli(t, "sessions", "delete", forked, "-w", ws).want(t, ExitUsage)
	cli(t, "sessions", "delete", forked, "-w", ws, "--yes").want(t, ExitOK)
	if _, err := os.Stat(filepath.Join(ws, sessions.StateDir, "sessions", forked)); !os.IsNotExist(err) {
		t.Errorf("the deleted session's folder: %v", err)
	}
	// Cancel off a terminal does not ask; an unstarted session ends at once.
	c := jsonOut[sessions.Session](t, cli(t, "sessions", "create", "-w", ws, "--no-start", "--json", "later"))
	cli(t, "sessions", "cancel", c.ID, "-w", ws).want(t, ExitOK)
	if got := record(t, ws, c.ID); got.Status != sessions.Ended || got.EndReason != sessions.Cancelled {
		t.Errorf("cancel: %s %s", got.Status, got.EndReason)
	}
}

// TestAnswers: approvals and questions of a session another engine runs are
// answered by id prefix from the command line: a denial with a message, an
// allow for the session (a grant, then revoked), a question's default.
func TestAnswers(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	e := owner(t, ws)
	rec, err := e.Create(core.CreateOptions{Agent: "demo", Instructions: "write a hello note", AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	next := nextAction(t, ws, rec.ID)
	exec := next(core.NeedsApproval)
	if exec.Interaction.Tool != "exec" {
		t.Fatalf("first approval %+v", exec.Interaction)
	}
	r := cli(t, "actions", "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "atelier sessions approve|deny "+exec.Interaction.ID) {
		t.Errorf("actions does not say how to answer:\n%s", r.out)
	}
	cli(t, "sessions", "answer", exec.Interaction.ID, "-w", ws, "hello").want(t, ExitUsage) // not a question
	cli(t, "sessions", "deny", exec.Interaction.ID[:18], "-w", ws, "--message", "not today").want(t, ExitOK)

	q := next(core.NeedsAnswer)
	cli(t, "sessions", "answer", q.Interaction.ID, "-w", ws).want(t, ExitOK)
	write := next(core.NeedsApproval)
	if write.Interaction.Tool != "write_file" {
		t.Fatalf("second approval %+v", write.Interaction)
	}
	cli(t, "sessions", "approve", write.Interaction.ID, "-w", ws, "--session").want(t, ExitOK)
	poll.Until(t, "the end", func() bool { return record(t, ws, rec.ID).Status == sessions.Ended })

	r = cli(t, "sessions", "grants", rec.ID, "-w", ws).want(t, ExitOK)
	if strings.TrimSpace(r.out) != "write_file\tevery write_file call" {
		t.Errorf("grants: %q", r.out)
	}
	msgs, _, _ := e.Transcript(rec.ID)
	var states []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Tool != nil {
				states = append(states, p.Tool.Name+":"+string(p.Tool.State))
				if p.Tool.Name == "exec" && !strings.Contains(p.Tool.Output, "not today") {
					t.Errorf("the denial's message did not reach the agent: %q", p.Tool.Output)
				}
			}
		}
	}
	if got := strings.Join(states, " "); got != "exec:denied ask_user:done write_file:done wait:done" {
		t.Errorf("tool calls: %s", got)
	}
	cli(t, "sessions", "approve", "nosuchinteraction", "-w", ws).want(t, ExitUsage)
}

// TestApproveAPrefix: `approve --prefix` grants the commands starting with
// the words given, which the command shown must start with; the grants
// list names the scope.
func TestApproveAPrefix(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	e := owner(t, ws)
	rec, err := e.Create(core.CreateOptions{Agent: "demo", Instructions: "write a hello note", AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	exec := nextAction(t, ws, rec.ID)(core.NeedsApproval)
	if exec.Interaction.Command != "ls -la" {
		t.Fatalf("first approval %+v", exec.Interaction)
	}
	r := cli(t, "sessions", "approve", exec.Interaction.ID, "-w", ws, "--prefix", "ls -la -R").want(t, ExitUsage)
	if !strings.Contains(r.err, "does not start the command") {
		t.Errorf("a prefix the command does not start with: %q", r.err)
	}
	r = cli(t, "sessions", "approve", exec.Interaction.ID, "-w", ws, "--prefix", "ls").want(t, ExitOK)
	if !strings.Contains(r.out, "allowed commands starting with \"ls\" for the session") {
		t.Errorf("approve --prefix said %q", r.out)
	}
	r = cli(t, "sessions", "grants", rec.ID, "-w", ws).want(t, ExitOK)
	if strings.TrimSpace(r.out) != "exec:ls:*\tcommands starting with `ls`" {
		t.Errorf("grants: %q", r.out)
	}
}

// nextAction returns a function that waits for the next item of a kind in
// the Action required set of session id (one not returned before: an
// answer takes the host's engine a moment to apply).
func nextAction(t *testing.T, ws, id string) func(core.ActionKind) core.ActionItem {
	seen := map[string]bool{}
	return func(kind core.ActionKind) core.ActionItem {
		t.Helper()
		var found core.ActionItem
		poll.Until(t, string(kind), func() bool {
			for _, it := range jsonOut[[]core.ActionItem](t, cli(t, "actions", "-w", ws, "--json").want(t, ExitOK)) {
				if it.Kind == kind && it.SessionID == id && it.Interaction != nil && !seen[it.Interaction.ID] {
					found = it
					seen[it.Interaction.ID] = true
					return true
				}
			}
			return false
		})
		return found
	}
}

// TestConversation: a continuous session driven by send through the host,
// a keyed send not sent twice (the repeat prints the recorded reply),
// settings changes, and close.
func TestConversation(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	e := owner(t, ws)
	rec, err := e.Create(core.CreateOptions{Agent: "demo", Instructions: "hello", Mode: sessions.Continuous,
		Approval: core.PolicyAuto, AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	id := rec.ID
	q := nextAction(t, ws, id)(core.NeedsAnswer) // the demo's question: its default
	cli(t, "sessions", "answer", q.Interaction.ID, "-w", ws).want(t, ExitOK)
	waiting := func() bool { r := record(t, ws, id); return r.Status == sessions.Waiting && r.Turns >= 1 }
	poll.Until(t, "WAITING after turn 1", waiting)
	cli(t, "sessions", "send", id, "-w", ws, "--key", "k1", "tell", "me", "more").want(t, ExitOK)
	poll.Until(t, "turn 2", func() bool { r := record(t, ws, id); return r.Turns == 2 && r.Status == sessions.Waiting })
	r := cli(t, "sessions", "send", id, "-w", ws, "--key", "k1", "tell me more").want(t, ExitOK)
	if !strings.Contains(r.out, "You said: tell me more") || !strings.Contains(r.err, "nothing was sent again") {
		t.Errorf("a repeated key: %q %q", r.out, r.err)
	}
	cli(t, "sessions", "set", id, "-w", ws, "--model", "other-model", "--approval", "read-only").want(t, ExitOK)
	poll.Until(t, "the settings", func() bool { r := record(t, ws, id); return r.Model == "other-model" && r.Approval == "read-only" })
	cli(t, "sessions", "set", id, "-w", ws, "--approval", "sometimes").want(t, ExitUsage)
	cli(t, "sessions", "close", id, "-w", ws).want(t, ExitOK)
	poll.Until(t, "closed", func() bool {
		r := record(t, ws, id)
		return r.Status == sessions.Ended && r.EndReason == sessions.Completed
	})
	if got := record(t, ws, id).Turns; got != 2 {
		t.Errorf("turns %d: the repeated key ran again", got)
	}
	msgs, _, _ := e.Transcript(id)
	if last := msgs[len(msgs)-1].Text(); !strings.Contains(last, "You said: tell me more") {
		t.Errorf("turn 2 answered %q", last)
	}
}

// TestQueue: prompts recorded for a session nobody runs wait in its queue,
// where they are listed, moved and removed; send --wait then runs them.
func TestQueue(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	rec := jsonOut[sessions.Session](t, cli(t, "sessions", "create", "-w", ws, "--no-start", "--json", "--mode", "continuous", "first"))
	id := rec.ID
	for _, text := range []string{"alpha", "beta", "gamma"} {
		cli(t, "sessions", "send", id, "-w", ws, text).want(t, ExitOK)
	}
	q := jsonOut[[]sessions.Control](t, cli(t, "sessions", "queue", id, "-w", ws, "--json").want(t, ExitOK))
	if len(q) != 3 || q[0].Text != "alpha" {
		t.Fatalf("queue %+v", q)
	}
	cli(t, "sessions", "queue", "remove", id, q[1].ID[:20], "-w", ws).want(t, ExitOK)
	cli(t, "sessions", "queue", "remove", id, "nosuchitem", "-w", ws).want(t, ExitUsage)
	cli(t, "sessions", "queue", "move", id, q[0].ID, "first", "-w", ws).want(t, ExitUsage)
	q = jsonOut[[]sessions.Control](t, cli(t, "sessions", "queue", id, "-w", ws, "--json"))
	if len(q) != 2 || q[0].Text != "alpha" || q[1].Text != "gamma" {
		t.Fatalf("queue after remove: %+v", q)
	}
	r := cli(t, "sessions", "queue", id, "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "gamma") || strings.Index(r.out, "gamma") < strings.Index(r.out, "alpha") {
		t.Errorf("queue as text:\n%s", r.out)
	}
	// send --wait runs the session: the task, then the queued prompts in order.
	fast(t, "sessions", "send", id, "-w", ws, "--wait", "--approve", "auto", "delta").want(t, ExitOK)
	if got := record(t, ws, id); got.Status != sessions.Waiting || got.Turns != 4 {
		t.Errorf("after send --wait: %s, %d turns; want WAITING after 4 (task, alpha, gamma, delta)", got.Status, got.Turns)
	}
}

// TestQueueMove: a queue item moved by a short command keeps its place for
// the next process that reads the queue.
func TestQueueMove(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	rec := jsonOut[sessions.Session](t, cli(t, "sessions", "create", "-w", ws, "--no-start", "--json", "first"))
	for _, text := range []string{"alpha", "beta"} {
		cli(t, "sessions", "send", rec.ID, "-w", ws, text).want(t, ExitOK)
	}
	q := jsonOut[[]sessions.Control](t, cli(t, "sessions", "queue", rec.ID, "-w", ws, "--json"))
	r := cli(t, "sessions", "queue", "move", rec.ID, q[1].ID, "0", "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "moved") {
		t.Errorf("move said %q", r.out)
	}
	q = jsonOut[[]sessions.Control](t, cli(t, "sessions", "queue", rec.ID, "-w", ws, "--json"))
	if len(q) != 2 || q[0].Text != "beta" || q[1].Text != "alpha" {
		t.Fatalf("queue after move: %+v", q)
	}
}

// TestQueueEdit: a queue item edited by a short command keeps its place
// and its key, and the next process that reads the queue finds the text.
func TestQueueEdit(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	rec := jsonOut[sessions.Session](t, cli(t, "sessions", "create", "-w", ws, "--no-start", "--json", "first"))
	cli(t, "sessions", "send", rec.ID, "-w", ws, "--key", "k1", "alpha").want(t, ExitOK)
	cli(t, "sessions", "send", rec.ID, "-w", ws, "beta").want(t, ExitOK)
	q := jsonOut[[]sessions.Control](t, cli(t, "sessions", "queue", rec.ID, "-w", ws, "--json"))
	r := cli(t, "sessions", "queue", "edit", rec.ID, q[0].ID[:20], "-w", ws, "alpha,", "said", "better").want(t, ExitOK)
	if !strings.Contains(r.out, "edited") {
		t.Errorf("edit said %q", r.out)
	}
	cli(t, "sessions", "queue", "edit", rec.ID, q[1].ID, "-w", ws).want(t, ExitUsage)
	cli(t, "sessions", "queue", "edit", rec.ID, "nosuchitem", "-w", ws, "text").want(t, ExitUsage)
	got := jsonOut[[]sessions.Control](t, cli(t, "sessions", "queue", rec.ID, "-w", ws, "--json"))
	if len(got) != 2 || got[0].Text != "alpha, said better" || got[0].ID != q[0].ID || got[0].Key != "k1" || got[1].Text != "beta" {
		t.Fatalf("queue after edit: %+v", got)
	}
}

// TestRunKey: a repeated --key returns the session it created, with its
// result, and runs nothing again.
func TestRunKey(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	first := demoRun(t, ws, "--key", "nightly-1")
	r := fast(t, "run", "-w", ws, "--approve", "auto", "--json", "--key", "nightly-1", "write a hello note").want(t, ExitOK)
	if got := createdID(t, r.out); got != first {
		t.Fatalf("the repeated key made session %s, want %s", got, first)
	}
	if !strings.Contains(r.out, `"replayed":true`) || strings.Contains(r.out, `"type":"delta"`) {
		t.Errorf("the replay:\n%s", r.out)
	}
	r = fast(t, "run", "-w", ws, "--key", "nightly-1", "write a hello note").want(t, ExitOK)
	if !strings.Contains(r.out, "That is the whole demo.") {
		t.Errorf("the replay as text gives the result:\n%s", r.out)
	}
	demoRun(t, ws, "--key", "nightly-2")
	if n := len(readSessions(ws)); n != 2 {
		t.Errorf("%d sessions, want 2", n)
	}
}

// TestExec: a command in a session's environment, its output and exit
// code; a key that completed returns its recorded result.
func TestExec(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	rec := jsonOut[sessions.Session](t, cli(t, "sessions", "create", "-w", ws, "--no-start", "--json", "a task"))
	r := cli(t, "sessions", "exec", rec.ID, "-w", ws, "--", "echo out; echo err >&2; exit 3").want(t, 3)
	if r.out != "out\n" || r.err != "err\n" {
		t.Errorf("exec printed %q / %q", r.out, r.err)
	}
	first := cli(t, "sessions", "exec", rec.ID, "-w", ws, "--key", "k", "--", "date", "+%s%N").want(t, ExitOK)
	again := cli(t, "sessions", "exec", rec.ID, "-w", ws, "--key", "k", "--", "date", "+%s%N").want(t, ExitOK)
	if first.out != again.out || !strings.Contains(again.err, "did not run again") {
		t.Errorf("a repeated key: %q then %q (%s)", first.out, again.out, again.err)
	}
	res := jsonOut[core.ExecResult](t, cli(t, "sessions", "exec", rec.ID, "-w", ws, "--json", "--", "pwd"))
	if strings.TrimSpace(res.Stdout) != ws {
		t.Errorf("exec ran in %q, want the workspace", res.Stdout)
	}
	cli(t, "sessions", "cancel", rec.ID, "-w", ws, "--yes").want(t, ExitOK)
	cli(t, "sessions", "exec", rec.ID, "-w", ws, "--", "true").want(t, ExitUsage)
}

// TestCreateStartAt: --start-at takes a time or a duration; a time past is
// refused.
func TestCreateStartAt(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	before := time.Now()
	rec := jsonOut[sessions.Session](t, cli(t, "sessions", "create", "-w", ws, "--start-at", "10m", "--json", "later"))
	if rec.StartAt == nil || rec.StartAt.Sub(before) < 9*time.Minute || rec.AutoStart {
		t.Errorf("--start-at 10m: %+v", rec.StartAt)
	}
	at := time.Now().Add(2 * time.Hour).UTC().Truncate(time.Second)
	rec = jsonOut[sessions.Session](t, cli(t, "sessions", "create", "-w", ws, "--start-at", at.Format(time.RFC3339), "--json", "later"))
	if rec.StartAt == nil || !rec.StartAt.Equal(at) {
		t.Errorf("--start-at %s: %v", at, rec.StartAt)
	}
	for _, bad := range []string{"2001-01-01T00:00:00Z", "tomorrow", "-5m"} {
		cli(t, "sessions", "create", "-w", ws, "--start-at", bad, "later").want(t, ExitUsage)
	}
	if n := len(readSessions(ws)); n != 2 {
		t.Errorf("%d sessions: a refused create made one", n)
	}
}

// TestCompactAndArchivedList: `sessions compact` reaches the workspace's
// engine, which writes the summary (refused before there is anything to
// compact); `sessions clear` then leaves the agent nothing to be shown;
// `sessions --archived` lists the archived sessions only.
func TestCompactAndArchivedList(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	e := owner(t, ws)
	rec, err := e.Create(core.CreateOptions{Agent: "demo", Instructions: "hello", Mode: sessions.Continuous,
		Approval: core.PolicyAuto, AutoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	id := rec.ID
	answerQuestions := func(turns int) {
		poll.Until(t, fmt.Sprintf("turn %d", turns), func() bool {
			for _, it := range e.Snapshot().Interactions {
				if it.SessionID == id && it.Kind == sessions.Question {
					if err := e.As("").Answer(id, it.ID, core.Answer{Text: "fine"}); err != nil {
						t.Fatal(err)
					}
				}
			}
			r := record(t, ws, id)
			return r.Status == sessions.Waiting && r.Turns == turns
		})
	}
	answerQuestions(1)
	r := cli(t, "sessions", "compact", id, "-w", ws).want(t, ExitOK)
	poll.Until(t, "the refused compaction", func() bool {
		ctls, _, _ := controlsOf(t, ws, id)
		for _, c := range ctls {
			if c.Kind == sessions.CtlCompact && c.Outcome == "refused" {
				return true
			}
		}
		return false
	})
	for turn := 2; turn <= 3; turn++ {
		cli(t, "sessions", "send", id, "-w", ws, "go on").want(t, ExitOK)
		answerQuestions(turn)
	}
	r = cli(t, "sessions", "compact", id, "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "compact "+id) {
		t.Errorf("compact receipt %q", r.out)
	}
	poll.Until(t, "the summary", func() bool {
		msgs, _, _ := e.Transcript(id)
		for _, m := range msgs {
			if m.Role == sessions.Summary {
				return true
			}
		}
		return false
	})

	// `sessions clear` starts the conversation afresh: the agent is shown
	// nothing; the transcript keeps it all, with the marker.
	r = cli(t, "sessions", "clear", id, "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "clear "+id) {
		t.Errorf("clear receipt %q", r.out)
	}
	poll.Until(t, "the cleared context", func() bool {
		c := jsonOut[core.AgentContext](t, cli(t, "sessions", "context", id, "-w", ws, "--json").want(t, ExitOK))
		return c.Messages == 0 && !c.Compacted
	})
	if out := cli(t, "sessions", "show", id, "-w", ws).want(t, ExitOK).out; !strings.Contains(out, "cleared: history cleared") || !strings.Contains(out, "summary: ") {
		t.Errorf("show after clear:\n%s", out)
	}

	other, err := e.Create(core.CreateOptions{Agent: "demo", Instructions: "keep me"})
	if err != nil {
		t.Fatal(err)
	}
	cli(t, "sessions", "archive", id, "-w", ws).want(t, ExitOK)
	rows := jsonOut[[]sessionRow](t, cli(t, "sessions", "-w", ws, "--archived", "--json").want(t, ExitOK))
	if len(rows) != 1 || rows[0].ID != id {
		t.Fatalf("--archived listed %+v, want only %s", rows, id)
	}
	rows = jsonOut[[]sessionRow](t, cli(t, "sessions", "-w", ws, "--json").want(t, ExitOK))
	if len(rows) != 1 || rows[0].ID != other.ID {
		t.Fatalf("the default list %+v, want only %s", rows, other.ID)
	}
}

// TestSessionContext: `sessions context` prints what the session's agent is
// given, through the workspace's host and (none reachable) from the store:
// the demo is a model in the engine's tool loop, offered the built-in
// tools with their schemas, and shown the task.
func TestSessionContext(t *testing.T) {
	isolate(t)
	check := func(ws, id string) {
		t.Helper()
		c := jsonOut[core.AgentContext](t, cli(t, "sessions", "context", id, "-w", ws, "--json").want(t, ExitOK))
		names := map[string]bool{}
		for _, tool := range c.Tools {
			names[tool.Name] = len(tool.Schema) > 0
		}
		if c.Session != id || c.Agent != "demo" || c.Kind != core.ContextModel || !names["exec"] || !names["read_file"] || c.Next != "write a hello note" {
			t.Fatalf("context %+v", c)
		}
		r := cli(t, "sessions", "context", id[:12], "-w", ws).want(t, ExitOK)
		for _, want := range []string{"agent demo", "tools (", "exec — ", `"type"`, "next input: write a hello note"} {
			if !strings.Contains(r.out, want) {
				t.Errorf("context does not say %q:\n%s", want, r.out)
			}
		}
	}
	local := t.TempDir()
	rec := jsonOut[sessions.Session](t, cli(t, "sessions", "create", "-w", local, "--no-start", "--json", "write a hello note").want(t, ExitOK))
	check(local, rec.ID)

	hosted := t.TempDir()
	e := owner(t, hosted)
	r, err := e.Create(core.CreateOptions{Agent: "demo", Instructions: "write a hello note"})
	if err != nil {
		t.Fatal(err)
	}
	check(hosted, r.ID)
	cli(t, "sessions", "context", "nosuchsession", "-w", hosted).want(t, ExitUsage)
}

// controlsOf reads a session's recorded controls from its log, as the
// engine wrote them.
func controlsOf(t *testing.T, ws, id string) ([]sessions.Control, []sessions.Repair, error) {
	t.Helper()
	st, err := sessions.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	return st.Log(id).Controls()
}
