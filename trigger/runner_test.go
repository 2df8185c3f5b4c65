package trigger

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// autoDemo resolves "demo" to the demo agent under the auto policy, so
// its script runs without approvals (its question still waits).
type autoDemo struct{}

func (autoDemo) Resolve(agent string) (harness.Harness, core.AgentSettings, error) {
	if agent != "demo" {
		return nil, core.AgentSettings{}, fmt.Errorf("agent %q: %w", agent, core.ErrUnknownAgent)
	}
	return &harness.Demo{}, core.AgentSettings{Approval: core.PolicyAuto}, nil
}

// triggersOf loads the triggers a user's config.toml gives workspace ws.
func triggersOf(t *testing.T, ws, toml string) []config.Trigger {
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

// host is an engine on a workspace with its trigger runner, as an engine
// host runs them.
type host struct {
	t  *testing.T
	ws string
	e  *core.Engine
	r  *Runner
	mu sync.Mutex
	// logs are the runner's log lines.
	logs []string
}

func start(t *testing.T, ws string, ts []config.Trigger) *host {
	t.Helper()
	e, err := core.Open(ws, core.Options{Agents: autoDemo{}, Workers: 2, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	h := &host{t: t, ws: ws, e: e}
	r, err := New(e, ts, Options{Debounce: 100 * time.Millisecond, Logf: h.logf})
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.stop)
	return h
}

func (h *host) logf(format string, args ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs = append(h.logs, fmt.Sprintf(format, args...))
}

// stop stops the runner, then closes the engine, as a host does; a
// second stop does nothing.
func (h *host) stop() {
	if h.e == nil {
		return
	}
	if err := h.r.Stop(); err != nil {
		h.t.Error(err)
	}
	if err := h.e.Close(); err != nil {
		h.t.Error(err)
	}
	h.e = nil
}

// triggered returns the sessions the triggers created (their key says so).
func triggered(e *core.Engine) []sessions.Session {
	var out []sessions.Session
	for _, s := range e.Sessions() {
		if strings.HasPrefix(s.Key, KeyPrefix) {
			out = append(out, s)
		}
	}
	return out
}

// states returns the record's lines of trigger name in state st.
func states(t *testing.T, ws, name, st string) []Firing {
	t.Helper()
	all, err := ReadAll(ws)
	if err != nil {
		t.Fatal(err)
	}
	var out []Firing
	for _, f := range all {
		if f.Trigger == name && f.State == st {
			out = append(out, f)
		}
	}
	return out
}

// TestEventTriggerStartsASession: an event fired on the engine creates
// and starts a session of the trigger's agent whose prompt is rendered
// from the event's data, recorded fired then started; another event does
// nothing; a later host does not fire it again.
func TestEventTriggerStartsASession(t *testing.T) {
	ws := t.TempDir()
	ts := triggersOf(t, ws, `
[[triggers]]
name = "deployed"
on_event = "deploy"
agent = "demo"
prompt = "Check release {{ .event.data.version }} ({{ .firing.id }})"
`)
	h := start(t, ws, ts)
	h.e.FireEvent("other", "")
	h.e.FireEvent("deploy", `{"version": 7}`)
	poll.Until(t, "a triggered session", func() bool { return len(triggered(h.e)) == 1 })
	s := triggered(h.e)[0]
	if !strings.HasPrefix(s.Instructions, "Check release 7 (deployed@event/") || s.Agent != "demo" || !s.AutoStart {
		t.Fatalf("session %+v", s)
	}
	poll.Until(t, "the started line", func() bool { return len(states(t, ws, "deployed", StateStarted)) == 1 })
	fired := states(t, ws, "deployed", StateFired)
	if len(fired) != 1 || s.Key != KeyPrefix+fired[0].ID || states(t, ws, "deployed", StateStarted)[0].Session != s.ID {
		t.Fatalf("record %+v, session key %q", fired, s.Key)
	}
	if last, err := Last(ws); err != nil || last["deployed"].Session != s.ID {
		t.Fatalf("last firing %+v, %v", last, err)
	}
	h.stop()

	h2 := start(t, ws, ts)
	h2.e.FireEvent("unrelated", "")
	if n := len(triggered(h2.e)); n != 1 {
		t.Fatalf("a second host made %d triggered sessions", n)
	}
	if n := len(states(t, ws, "deployed", StateFired)); n != 1 {
		t.Fatalf("a second host recorded %d firings", n)
	}
}

// TestPendingFiringFinishesOnce: a firing recorded by a host that died
// before it started is started by the next host, once; if its session had
// been made after all, the key returns it instead of a second one.
func TestPendingFiringFinishesOnce(t *testing.T) {
	ws := t.TempDir()
	ts := triggersOf(t, ws, `
[[triggers]]
name = "deployed"
on_event = "deploy"
agent = "demo"
prompt = "p"
`)
	// The first host made the session, then died before recording it.
	h := start(t, ws, nil)
	made, err := h.e.Create(core.CreateOptions{Agent: "demo", Instructions: "made before the crash", Key: KeyPrefix + "deployed@event/a"})
	if err != nil {
		t.Fatal(err)
	}
	h.stop()
	lines := []Firing{
		{ID: "deployed@event/a", Trigger: "deployed", State: StateFired, Time: time.Now(), Text: "made before the crash"},
		{ID: "deployed@event/b", Trigger: "deployed", State: StateFired, Time: time.Now(), Text: "never made"},
	}
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(j, '\n'))
	}
	b.WriteString(`{"id":"torn`) // the crash tore the last line
	if err := os.WriteFile(filepath.Join(ws, sessions.StateDir, File), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	h = start(t, ws, ts)
	poll.Until(t, "two started lines", func() bool { return len(states(t, ws, "deployed", StateStarted)) == 2 })
	got := triggered(h.e)
	if len(got) != 2 {
		t.Fatalf("%d triggered sessions, want the one made before and one for b", len(got))
	}
	for _, f := range states(t, ws, "deployed", StateStarted) {
		if f.ID == "deployed@event/a" && f.Session != made.ID {
			t.Errorf("firing a started %s, not the session made before the crash %s", f.Session, made.ID)
		}
	}
	h.stop()
	h = start(t, ws, ts)
	if n := len(triggered(h.e)); n != 2 {
		t.Fatalf("a third host made more: %d", n)
	}
}

// TestScheduleFiresAndReportsMissed: a schedule fires on the running
// host, each firing under the time it was due; the times it was due while
// no host ran are recorded and said, not run.
func TestScheduleFiresAndReportsMissed(t *testing.T) {
	ws := t.TempDir()
	ts := triggersOf(t, ws, `
[[triggers]]
name = "tick"
schedule = "@every 1s"
agent = "demo"
prompt = "tick {{ .firing.id }}"
`)
	h := start(t, ws, ts)
	poll.Until(t, "two firings started", func() bool { return len(states(t, ws, "tick", StateStarted)) >= 2 })
	h.stop()
	fired := states(t, ws, "tick", StateFired)
	if fired[0].Scheduled == nil || !fired[1].Scheduled.After(*fired[0].Scheduled) || fired[0].ID == fired[1].ID {
		t.Fatalf("firings %+v", fired)
	}
	// No host for a while: the record says the schedule was last armed
	// a minute ago.
	old := time.Now().Add(-time.Minute).UTC()
	line, err := json.Marshal(Firing{Trigger: "tick", State: StateArmed, Time: old, Schedule: "@every 1s", Scheduled: &old})
	if err != nil {
		t.Fatal(err)
	}
	// Rewrite the record as a host a minute ago left it.
	if err := os.WriteFile(filepath.Join(ws, sessions.StateDir, File), append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	start(t, ws, ts)
	missed := states(t, ws, "tick", StateMissed)
	if len(missed) != 1 || missed[0].Missed < 55 || missed[0].Missed > 65 {
		t.Fatalf("missed %+v, want about 60", missed)
	}
	poll.Until(t, "a firing on the new host", func() bool { return len(states(t, ws, "tick", StateStarted)) >= 1 })
	for _, f := range states(t, ws, "tick", StateFired) {
		if f.Scheduled.Before(before.Add(-time.Second)) {
			t.Fatalf("a missed time ran: %+v", f)
		}
	}
}

// TestChangeTriggerIgnoresItsOwnSessions: a change of a matching file
// fires the trigger with the changed paths; what the session it started
// writes does not fire it again.
func TestChangeTriggerIgnoresItsOwnSessions(t *testing.T) {
	ws := t.TempDir()
	ts := triggersOf(t, ws, `
[[triggers]]
name = "notes"
on_change = "**/*.md"
agent = "demo"
prompt = "Changed: {{ range .changed }}{{ . }} {{ end }}"
`)
	h := start(t, ws, ts)
	if err := os.WriteFile(filepath.Join(ws, "todo.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main"), 0o644); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "a triggered session", func() bool { return len(triggered(h.e)) == 1 })
	s := triggered(h.e)[0]
	if s.Instructions != "Changed: todo.md " {
		t.Fatalf("prompt %q", s.Instructions)
	}
	// The demo asks its question (the auto policy answers approvals, not
	// questions), then writes atelier-demo.md: its own change.
	poll.Until(t, "the demo's question", func() bool {
		for _, it := range h.e.Snapshot().Interactions {
			if it.SessionID == s.ID && it.Kind == sessions.Question && !it.Resolved {
				return h.e.As("").Answer(s.ID, it.ID, core.Answer{Text: "hello"}) == nil
			}
		}
		return false
	})
	poll.Until(t, "the session's note", func() bool {
		_, err := os.Stat(filepath.Join(ws, harness.DemoFile))
		return err == nil
	})
	// A change of somebody else's after it: the next firing has it alone.
	if err := os.WriteFile(filepath.Join(ws, "later.md"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, "a second firing", func() bool { return len(states(t, ws, "notes", StateStarted)) == 2 })
	all := triggered(h.e)
	if len(all) != 2 {
		t.Fatalf("%d triggered sessions, want 2", len(all))
	}
	for _, x := range all {
		if strings.Contains(x.Instructions, harness.DemoFile) {
			t.Fatalf("the session's own change fired the trigger: %q", x.Instructions)
		}
	}
}

// TestWorkflowTriggerRefusedWithout: a workflow trigger is refused when
// nothing runs workflows, naming where it is written; with Workflows, a
// firing starts the workflow with the rendered input.
func TestWorkflowTriggerRefusedWithout(t *testing.T) {
	ws := t.TempDir()
	ts := triggersOf(t, ws, `
[[triggers]]
name = "review"
on_event = "pr"
workflow = "implement"
input = '{"requestId": {{ json .firing.id }}, "request": {{ json .event.data.title }}}'
`)
	e, err := core.Open(ws, core.Options{Agents: autoDemo{}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	}()
	if _, err := New(e, ts, Options{}); err == nil || !strings.Contains(err.Error(), "config.toml:2") || !strings.Contains(err.Error(), "runs no workflows") {
		t.Fatalf("without workflows: %v", err)
	}
	wf := &fakeWorkflows{}
	r, err := New(e, ts, Options{Workflows: wf})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := r.Stop(); err != nil {
			t.Error(err)
		}
	}()
	e.FireEvent("pr", `{"title": "fix it"}`)
	poll.Until(t, "the workflow started", func() bool { return len(states(t, ws, "review", StateStarted)) == 1 })
	got := wf.calls()
	var in map[string]string
	if len(got) != 1 || got[0].name != "implement" || json.Unmarshal(got[0].input, &in) != nil ||
		in["request"] != "fix it" || !strings.HasPrefix(in["requestId"], "review@event/") {
		t.Fatalf("workflow calls %+v", got)
	}
	if f := states(t, ws, "review", StateStarted)[0]; f.Run != "run-1" {
		t.Fatalf("started %+v", f)
	}
}

// fakeWorkflows stands in for the workflow engine (another package's
// work): it records the starts.
type fakeWorkflows struct {
	mu    sync.Mutex
	start []wfCall
}

type wfCall struct {
	name  string
	input json.RawMessage
}

func (f *fakeWorkflows) Start(_ context.Context, name string, input json.RawMessage) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.start = append(f.start, wfCall{name, input})
	return fmt.Sprintf("run-%d", len(f.start)), nil
}

func (f *fakeWorkflows) calls() []wfCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wfCall(nil), f.start...)
}
