package tui

import (
	"context"

	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atelier-studio/atelier/api"
	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/trigger"
	"github.com/atelier-studio/atelier/trigger/state"
	"github.com/atelier-studio/atelier/workflow"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// gateTOML waits in its second step until the file "go" exists, so a
// test sees the run in flight.
const gateTOML = `agent = "demo"
key = "id"
[input]
type = "object"
required = ["id"]
properties = { id = { type = "string" } }
[[steps]]
key = "prep"
exec = "true"
[[steps]]
key = "gate"
exec = "while [ ! -f go ]; do sleep 0.05; done"
[[steps]]
key = "after"
exec = "exit 0"
`

// runnerOn writes workflow files into ws and returns a runner of eng
// that trusts them, closed when the test ends.
func runnerOn(t *testing.T, eng *core.Engine, files map[string]string) *workflow.Runner {
	t.Helper()
	ws := eng.Workspace()
	for name, body := range files {
		writeFile(t, filepath.Join(ws, workflow.WorkspaceDir, name), body)
	}
	r := workflow.NewRunner(eng, workflow.Options{Finder: workflow.Finder{Workspace: ws,
		Trust: func() (config.TrustState, error) { return config.TrustTrusted, nil }}})
	t.Cleanup(r.Close)
	return r
}

// TestWorkflowRunInTheStudio: in-process, a workflow run's session shows
// under the run's group row, its steps with the current one marked; its
// session tab shows the steps above the transcript; both follow the run
// to its end without a poll (the runner's notices).
func TestWorkflowRunInTheStudio(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, ws, 160, 40)
	r := runnerOn(t, h.eng, map[string]string{"gate.toml": gateTOML})
	if _, err := r.Start(workflow.StartRequest{Workflow: "gate", Input: json.RawMessage(`{"id":"g1"}`), Approve: "auto"}); err != nil {
		t.Fatal(err)
	}
	h.until("the run's group, at its gate", func() bool {
		s := h.screen()
		return strings.Contains(s, "▾ workflow gate · g1") && strings.Contains(s, "✓ prep exit 0  ▶ gate  · after") &&
			strings.Contains(s, "workflow gate: g1")
	})
	h.press("enter") // the run's session, the only one, is selected
	if _, ok := h.app.tabs.current().(*sessionTab); !ok {
		t.Fatalf("enter opens the run's session:\n%s", h.screen())
	}
	if s := h.screen(); !strings.Contains(s, "workflow gate · g1 · running  ✓ prep exit 0  ▶ gate  · after") {
		t.Fatalf("the session tab shows the run's steps:\n%s", s)
	}
	writeFile(t, filepath.Join(ws, "go"), "")
	h.until("the run done, in the list and the tab", func() bool {
		s := h.screen()
		return strings.Contains(s, "workflow gate · g1 · done  ✓ prep exit 0  ✓ gate exit 0  ✓ after exit 0") &&
			strings.Count(s, "✓ prep exit 0  ✓ gate exit 0") == 2 && strings.Contains(s, "▾ workflow gate · g1         done")
	})
}

// TestAttachedStudioShowsRunsTriggersAndSignals: attached to another
// machine's engine, the studio reads the runs and the triggers through
// the engine's API (GET /v1/workflow-runs, /v1/triggers), and a fired
// event's data reaches its activity over the event stream.
func TestAttachedStudioShowsRunsTriggersAndSignals(t *testing.T) {
	far := t.TempDir()
	var ts []config.Trigger
	var r *workflow.Runner
	h := farStudioWith(t, far, func(e *core.Engine) api.Options {
		r = runnerOn(t, e, map[string]string{"two.toml": strings.Replace(gateTOML, "while [ ! -f go ]; do sleep 0.05; done", "exit 4", 1)})
		ts = triggersFor(t, far, `
[[triggers]]
name = "deployed"
on_event = "deploy"
agent = "demo"
prompt = "Check {{ .event.data.version }}"
`)
		return api.Options{Workflows: r, Triggers: func() ([]state.Trigger, error) { return trigger.List(far, ts, time.Now()) }}
	})
	run, err := r.Start(workflow.StartRequest{Workflow: "two", Input: json.RawMessage(`{"id":"r1"}`)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if run, err = r.Wait(ctx, run.ID); err != nil || run.Status != runs.Failed {
		t.Fatalf("the run: %+v, %v", run, err)
	}
	h.run(h.app.Init())
	h.send(tea.WindowSizeMsg{Width: 200, Height: 40})
	h.until("the failed run's group", func() bool {
		s := h.screen()
		return strings.Contains(s, "▾ workflow two · r1") && strings.Contains(s, "failed") &&
			strings.Contains(s, "✓ prep exit 0  ✗ gate exit 4")
	})

	tr, err := trigger.New(h.eng, ts, trigger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tr.Stop(); err != nil {
			t.Error(err)
		}
	})
	h.press(",")
	h.until("the host's trigger in the settings", func() bool {
		return strings.Contains(h.screen(), `deployed on_event "deploy" → agent demo  last: never fired`)
	})
	h.eng.FireEvent("deploy", `{"version": 7, "notes": "`+strings.Repeat("x", 100)+`"}`)
	h.until("the event with its data, and the firing in the settings", func() bool {
		return h.logged(`event deploy fired with {"notes":"xxxx`) && h.logged("xxx…") &&
			strings.Contains(h.screen(), "started session")
	})
}

// triggersFor loads the triggers a user's config.toml gives workspace ws.
func triggersFor(t *testing.T, ws, toml string) []config.Trigger {
	t.Helper()
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	body := strings.ReplaceAll(toml, "[[triggers]]", `[[workspaces."`+ws+`".triggers]]`)
	if err := os.WriteFile(user, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, UserConfigPath: user, Env: func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Triggers
}

// TestActivityKeepsFiringsNoStudioSaw: a firing the host recorded while
// no studio was open shows in the next studio's activity, at its time,
// and is kept in the activity file: the studio after that shows it once.
func TestActivityKeepsFiringsNoStudioSaw(t *testing.T) {
	ws := t.TempDir()
	state := filepath.Join(ws, sessions.StateDir)
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour).UTC()
	old, err := json.Marshal(activityLine{Time: t0, Text: "an earlier studio's entry"})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(state, ActivityFile), string(old)+"\n")
	var rec []byte
	for _, f := range []trigger.Firing{
		{ID: "deployed@event/0", Trigger: "deployed", State: trigger.StateStarted, Time: t0.Add(-time.Minute), Session: "seen"},
		{ID: "deployed@event/1", Trigger: "deployed", State: trigger.StateFired, Time: t0.Add(time.Minute), Cause: "event deploy"},
		{ID: "deployed@event/1", Trigger: "deployed", State: trigger.StateStarted, Time: t0.Add(time.Minute), Session: "s1"},
	} {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		rec = append(append(rec, b...), '\n')
	}
	writeFile(t, filepath.Join(state, trigger.File), string(rec))
	want := "trigger deployed fired (event deploy): started session s1"
	first := newHarness(t, ws, 160, 40)
	for studio := 1; studio <= 2; studio++ {
		h := first
		if studio == 2 {
			h = studioOn(t, first.eng)
		}
		var got []string
		for _, e := range h.app.activity.Newest(10) {
			if strings.HasPrefix(e.Text, "trigger ") || strings.HasPrefix(e.Text, "an earlier") {
				got = append(got, e.Text)
			}
		}
		if strings.Join(got, "\n") != want+"\nan earlier studio's entry" {
			t.Fatalf("studio %d's activity, newest first:\n%s", studio, strings.Join(got, "\n"))
		}
		h.app.Close() // writes what it queued
	}
}

// studioOn opens another studio on an engine a harness opened.
func studioOn(t *testing.T, eng *core.Engine) *harnessT {
	t.Helper()
	app, err := New(Options{Engine: attach.Local(eng), NoColor: true, Workspace: "/work/space"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	h := &harnessT{t: t, app: app, eng: eng}
	h.run(app.Init())
	h.send(tea.WindowSizeMsg{Width: 160, Height: 40})
	return h
}
