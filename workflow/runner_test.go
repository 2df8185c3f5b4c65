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

func (g *rig) open() {
	g.t.Helper()
	e, err := core.Open(g.ws, core.Options{Agents: core.DemoResolver{Demo: &harness.Demo{Wait: 10 * time.Millisecond}}, NoHistory: true})
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
