package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// implementTOML is the example: exec → ask → exec → ask with an
// output schema.
const implementTOML = `description = "Implement a request, test it, report"
agent = "demo"
key = "requestId"

[input]
type = "object"
required = ["requestId", "request"]
properties = { requestId = { type = "string" }, request = { type = "string" } }

[[steps]]
key = "install"
exec = "echo installed >> install.log"

[[steps]]
key = "implement"
ask = "{{ .input.request }}"

[[steps]]
key = "test"
exec = "test -f atelier-demo.md && echo tests-ok"
on_failure = "fail"

[[steps]]
key = "report"
ask = "Tests passed. Summarize the changes. Test output:\n{{ .steps.test.stdout }}"
output = { type = "object", required = ["summary"], properties = { summary = { type = "string" } } }
`

// rig is a workspace with a real engine (the demo agent) and a runner.
type rig struct {
	t   *testing.T
	ws  string
	eng *core.Engine
	r   *Runner
}

func newRig(t *testing.T, files map[string]string) *rig {
	t.Helper()
	ws := t.TempDir()
	for name, body := range files {
		p := filepath.Join(ws, WorkspaceDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := &rig{t: t, ws: ws}
	g.open()
	return g
}

func trusted() (config.TrustState, error) { return config.TrustTrusted, nil }

func (g *rig) open() { g.openWith(&harness.Demo{Wait: 10 * time.Millisecond}) }

func (g *rig) openWith(demo *harness.Demo) {
	g.t.Helper()
	e, err := core.Open(g.ws, core.Options{Agents: core.DemoResolver{Demo: demo}, NoHistory: true})
	if err != nil {
		g.t.Fatal(err)
	}
	r := NewRunner(e, Options{Finder: Finder{Workspace: g.ws, Trust: trusted}})
	if err := r.Err(); err != nil {
		g.t.Fatal(err)
	}
	g.eng, g.r = e, r
	g.t.Cleanup(g.close)
}

func (g *rig) close() {
	if g.eng == nil {
		return
	}
	g.r.Close()
	if err := g.eng.Close(); err != nil {
		g.t.Error(err)
	}
	g.eng, g.r = nil, nil
}

// run starts a run and waits for its goroutine.
func (g *rig) run(req StartRequest) (*runs.Run, error) {
	g.t.Helper()
	run, err := g.r.Start(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return g.r.Wait(ctx, run.ID)
}

// execs counts the exec lines of a session's audit log with cmd.
func (g *rig) execs(id, cmd string) int {
	g.t.Helper()
	b, err := os.ReadFile(filepath.Join(g.ws, sessions.StateDir, "sessions", id, "turns.jsonl"))
	if err != nil {
		g.t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"kind":"exec"`) && strings.Contains(l, cmd) {
			n++
		}
	}
	return n
}

func TestRunCompletesAndRepeatReplays(t *testing.T) {
	g := newRig(t, map[string]string{"implement.toml": implementTOML})
	in := json.RawMessage(`{"requestId":"fix-001","request":"add a note"}`)
	run, err := g.run(StartRequest{Workflow: "implement", Input: in, Approve: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Completed {
		t.Fatalf("status %s, failure %+v", run.Status, run.Failure)
	}
	var res map[string]any
	if err := json.Unmarshal(run.Result, &res); err != nil || res["summary"] == nil {
		t.Fatalf("result %s: %v", run.Result, err)
	}
	if got := run.Steps[2].Stdout; got != "tests-ok\n" {
		t.Errorf("test step stdout %q", got)
	}
	rec, err := g.eng.Session(run.Session)
	if err != nil || rec.Status != sessions.Ended {
		t.Fatalf("session %+v, %v: not closed", rec, err)
	}
	before := len(g.eng.Sessions())
	again, err := g.run(StartRequest{Workflow: "implement", Input: json.RawMessage(`{"request":"add a note", "requestId":"fix-001"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if again.Status != runs.Completed || string(again.Result) != string(run.Result) || !again.Updated.Equal(run.Updated) {
		t.Errorf("repeat: %+v", again)
	}
	if n := len(g.eng.Sessions()); n != before {
		t.Errorf("repeat made sessions: %d, was %d", n, before)
	}
	if n := g.execs(run.Session, "install.log"); n != 1 {
		t.Errorf("install ran %d times", n)
	}
	_, err = g.r.Start(StartRequest{Workflow: "implement", Input: json.RawMessage(`{"requestId":"fix-001","request":"other"}`)})
	if !errors.Is(err, ErrConflict) {
		t.Errorf("other input, same key: %v", err)
	}
}

// flow is a workflow whose steps are given, on the input {"id": ...}.
func flow(steps string) string {
	return `agent = "demo"
key = "id"
[input]
type = "object"
required = ["id"]
properties = { id = { type = "string" } }
` + steps
}

func TestFailureClosesAndRetryGoesOnFromTheFailedStep(t *testing.T) {
	g := newRig(t, map[string]string{"check.toml": flow(`
[[steps]]
key = "install"
exec = "echo once >> install.log"
[[steps]]
key = "check"
exec = "test -f flag"
[[steps]]
key = "done"
exec = "echo done"
`)})
	in := json.RawMessage(`{"id":"r1"}`)
	run, err := g.run(StartRequest{Workflow: "check", Input: in})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Failed || run.Failure == nil || run.Failure.Kind != runs.FailStep || run.Failure.Step != "check" ||
		!strings.Contains(run.Failure.Message, "exited 1") {
		t.Fatalf("run %+v failure %+v", run, run.Failure)
	}
	first := run.Session
	if rec, _ := g.eng.Session(first); rec.Status != sessions.Ended {
		t.Errorf("failed run's session is %s, not closed", rec.Status)
	}
	// A repeat without --retry returns the failure, running nothing.
	again, err := g.run(StartRequest{Workflow: "check", Input: in})
	if err != nil || again.Status != runs.Failed || again.Session != first {
		t.Fatalf("repeat: %+v, %v", again, err)
	}
	if err := os.WriteFile(filepath.Join(g.ws, "flag"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	run, err = g.run(StartRequest{Workflow: "check", Input: in, Retry: true})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Completed || run.Attempt != 2 || run.Session == first || len(run.Superseded) != 1 {
		t.Fatalf("retry: %+v", run)
	}
	b, err := os.ReadFile(filepath.Join(g.ws, "install.log"))
	if err != nil || string(b) != "once\n" {
		t.Errorf("install.log %q, %v: the step done before ran again", b, err)
	}
	if n := g.execs(run.Session, "install.log"); n != 0 {
		t.Errorf("the retry's session ran install %d times", n)
	}
}

func TestContinueOnFailure(t *testing.T) {
	g := newRig(t, map[string]string{"c.toml": flow(`
[[steps]]
key = "lint"
exec = "echo bad >&2; exit 3"
on_failure = "continue"
[[steps]]
key = "after"
exec = "echo lint said {{ .steps.lint.exit_code }} {{ .steps.lint.stderr }}"
`)})
	run, err := g.run(StartRequest{Workflow: "c", Input: json.RawMessage(`{"id":"1"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Completed || !run.Steps[0].Continued || run.Steps[0].Status != "failed" {
		t.Fatalf("run %+v", run)
	}
	var res struct {
		Stdout string `json:"stdout"`
	}
	if err := json.Unmarshal(run.Result, &res); err != nil || res.Stdout != "lint said 3 bad\n" {
		t.Errorf("result %s, %v", run.Result, err)
	}
}

func TestAnswerOffItsSchemaFails(t *testing.T) {
	g := newRig(t, map[string]string{"o.toml": flow(`
[[steps]]
key = "report"
ask = "report"
output = { type = "object", not = {} }
`)})
	run, err := g.run(StartRequest{Workflow: "o", Input: json.RawMessage(`{"id":"1"}`), Approve: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Failed || run.Failure.Kind != runs.FailOutput || len(run.Failure.Errors) == 0 {
		t.Fatalf("run %+v failure %+v", run, run.Failure)
	}
	if rec, _ := g.eng.Session(run.Session); rec.Status != sessions.Ended {
		t.Errorf("session %s, not closed", rec.Status)
	}
}

func TestSuspendedRunResumes(t *testing.T) {
	g := newRig(t, map[string]string{"s.toml": flow(`
[[steps]]
key = "install"
exec = "echo once >> install.log"
[[steps]]
key = "implement"
ask = "do it"
`)})
	in := json.RawMessage(`{"id":"1"}`)
	run, err := g.run(StartRequest{Workflow: "s", Input: in, Approve: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Suspended || run.Current != "implement" || !strings.Contains(run.Waiting, "approval") {
		t.Fatalf("run %+v", run)
	}
	if rec, _ := g.eng.Session(run.Session); rec.Status == sessions.Ended {
		t.Fatal("a suspended run's session was closed")
	}
	// A repeat reports the suspension; it does not run anything.
	if again, err := g.run(StartRequest{Workflow: "s", Input: in}); err != nil || again.Status != runs.Suspended {
		t.Fatalf("repeat: %+v, %v", again, err)
	}
	// The host goes away and comes back: the run stays suspended.
	g.close()
	g.open()
	if got, err := g.r.Get(run.ID); err != nil || got.Status != runs.Suspended {
		t.Fatalf("after a restart: %+v, %v", got, err)
	}
	if _, err := g.r.Resume(run.ID, "auto"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run, err = g.r.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Completed || run.Approve != "auto" {
		t.Fatalf("resumed run %+v failure %+v", run, run.Failure)
	}
	if n := g.execs(run.Session, "install.log"); n != 1 {
		t.Errorf("install ran %d times", n)
	}
}

func TestRunningRunResumesOnTheNextRunner(t *testing.T) {
	g := newRig(t, map[string]string{"r.toml": flow(`
[[steps]]
key = "install"
exec = "echo once >> install.log"
[[steps]]
key = "implement"
ask = "do it"
[[steps]]
key = "after"
exec = "echo after"
`)})
	g.close()
	demo := &harness.Demo{Event: "go"}
	g.openWith(demo)
	run, err := g.r.Start(StartRequest{Workflow: "r", Input: json.RawMessage(`{"id":"1"}`), Approve: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	parked := func() bool {
		for _, it := range g.eng.Snapshot().Interactions {
			if it.Kind == sessions.Park && it.Event == "go" && !it.Resolved {
				return true
			}
		}
		return false
	}
	poll.Until(t, "the ask step's turn to park on its event", parked)
	g.close() // the host stops mid-step
	rec, err := records{dir: filepath.Join(g.ws, sessions.StateDir, "workflows")}.load(run.ID)
	if err != nil || rec.Status != runs.Running || rec.Current != "implement" {
		t.Fatalf("record after the stop: %+v, %v", rec, err)
	}
	g.openWith(demo) // the next runner takes the run up by itself
	poll.Until(t, "the resumed turn to park again", parked)
	if n := g.eng.FireEvent("go", ""); n != 1 {
		t.Fatalf("woke %d", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run, err = g.r.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Completed {
		t.Fatalf("run %+v failure %+v", run, run.Failure)
	}
	if n := g.execs(run.Session, "install.log"); n != 1 {
		t.Errorf("install ran %d times", n)
	}
}

func TestInterruptedExecIsUncertainNotRunAgain(t *testing.T) {
	g := newRig(t, map[string]string{"u.toml": flow(`
[[steps]]
key = "slow"
exec = "echo ran >> ran.log; touch started; while [ ! -f go ]; do sleep 0.05; done"
`)})
	run, err := g.r.Start(StartRequest{Workflow: "u", Input: json.RawMessage(`{"id":"1"}`)})
	if err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "the command to start", func() bool {
		_, err := os.Stat(filepath.Join(g.ws, "started"))
		return err == nil
	})
	g.close()
	g.open()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run, err = g.r.Wait(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Failed || run.Failure.Kind != runs.FailUncertain || run.Failure.Step != "slow" {
		t.Fatalf("run %+v failure %+v", run, run.Failure)
	}
	if b, _ := os.ReadFile(filepath.Join(g.ws, "ran.log")); string(b) != "ran\n" {
		t.Errorf("ran.log %q: the command ran again", b)
	}
}

// TestRunnerStopsWithItsEngine: the host closes the engine, never the
// runner: the runner's goroutines end by themselves, leaving the run
// running for the next host.
func TestRunnerStopsWithItsEngine(t *testing.T) {
	g := newRig(t, map[string]string{"r.toml": flow(`
[[steps]]
key = "implement"
ask = "do it"
`)})
	g.close()
	g.openWith(&harness.Demo{Event: "never"})
	run, err := g.r.Start(StartRequest{Workflow: "r", Input: json.RawMessage(`{"id":"1"}`), Approve: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "the turn to park", func() bool {
		for _, it := range g.eng.Snapshot().Interactions {
			if it.Kind == sessions.Park && !it.Resolved {
				return true
			}
		}
		return false
	})
	n := len(g.eng.Sessions())
	attached, err := g.r.Start(StartRequest{Workflow: "r", Input: json.RawMessage(`{"id":"1"}`)})
	if err != nil || attached.ID != run.ID || attached.Status != runs.Running || len(g.eng.Sessions()) != n {
		t.Fatalf("a start of the run in flight: %+v, %v (sessions %d, was %d)", attached, err, len(g.eng.Sessions()), n)
	}
	if err := g.eng.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := g.r.Wait(ctx, run.ID)
	if err != nil {
		t.Fatalf("the run's goroutine did not end with the engine: %v", err)
	}
	if got.Status != runs.Running || got.Current != "implement" {
		t.Errorf("record %+v", got)
	}
	if _, err := g.r.Start(StartRequest{Workflow: "r", Input: json.RawMessage(`{"id":"2"}`)}); !errors.Is(err, ErrClosed) {
		t.Errorf("a start on a stopped runner: %v", err)
	}
	g.r.Close() // returns: every goroutine ended
	g.eng, g.r = nil, nil
}
