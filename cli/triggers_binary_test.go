package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/trigger"
	"github.com/atelier-studio/atelier/workflow"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// The tests of this file run triggers through the real binary: a host
// started as a user's commands start it, with triggers in the user's
// config.toml under the workspace's table.

// triggerConfig is the user configuration of a sandbox: the quick agent
// (its answer repeats the prompt) and the workspace's triggers.
func triggerConfig(ws, triggers string) string {
	return quickAgent + "\n" + strings.ReplaceAll(triggers, "[[triggers]]", fmt.Sprintf("[[workspaces.%q.triggers]]", ws))
}

// firings reads the sandbox's trigger record; name "" gives every line.
func firings(t *testing.T, ws, name, state string) []trigger.Firing {
	t.Helper()
	all, err := trigger.ReadAll(ws)
	if err != nil {
		t.Fatal(err)
	}
	var out []trigger.Firing
	for _, f := range all {
		if (name == "" || f.Trigger == name) && f.State == state {
			out = append(out, f)
		}
	}
	return out
}

// sessionRows lists every session through `sessions --all --json`.
func (b *sandbox) sessionRows() []sessionRow {
	b.t.Helper()
	r := b.run("sessions", "--all", "--json").want(b.t, ExitOK)
	var rows []sessionRow
	if err := json.Unmarshal([]byte(r.out), &rows); err != nil {
		b.t.Fatalf("sessions --json: %v\n%s", err, r.out)
	}
	return rows
}

// TestBinaryEventFiresTriggerAndWakesParked: `atelier events fire NAME
// --data JSON` wakes the session parked on the event (its wait returns)
// and creates a session of the trigger that listens for it, its prompt
// made from the data; a host started later does not fire that event again.
func TestBinaryEventFiresTriggerAndWakesParked(t *testing.T) {
	b := newServeSandbox(t)
	srv := modeltest.NewServer(t, chatToolCall(t, "wait", map[string]any{"event": "deploy"}), chatText("the deploy is done"))
	b.configure(triggerConfig(b.ws, `
[agents.m]
harness = "openai"
model = "m"
base_url = "`+srv.URL+`/v1"
approval = "auto"

[[triggers]]
name = "deployed"
on_event = "deploy"
agent = "quick"
prompt = "Check release {{ .event.data.version }} of {{ .event.name }}"
`))
	parked := strings.TrimSpace(b.run("sessions", "create", "--agent", "m", "wait for the deploy").want(t, ExitOK).out)
	poll.Until(t, "the session parked on deploy", func() bool {
		row := b.record(parked)
		return row.Status == string(sessions.Running) && row.SubState == string(sessions.Parked)
	})
	r := b.run("events", "fire", "deploy", "--data", `{"version": 7}`).want(t, ExitOK)
	if !strings.Contains(r.out, "woke 1 parked session") {
		t.Fatalf("events fire printed %q", r.out)
	}
	poll.Until(t, "the parked session to end", func() bool { return b.record(parked).Status == string(sessions.Ended) })
	poll.Until(t, "the trigger's session to start", func() bool { return len(firings(t, b.ws, "deployed", trigger.StateStarted)) == 1 })
	started := firings(t, b.ws, "deployed", trigger.StateStarted)[0]
	if rec := record(t, b.ws, started.Session); rec.Instructions != "Check release 7 of deploy" || rec.Agent != "quick" {
		t.Fatalf("the triggered session: agent %s, prompt %q", rec.Agent, rec.Instructions)
	}
	poll.Until(t, "the triggered session to complete", func() bool { return b.record(started.Session).Status == string(sessions.Ended) })

	// Another host: nothing fires again, and another event fires nothing.
	b.stopHost()
	b.detach()
	b.run("events", "fire", "other").want(t, ExitOK)
	if n := len(firings(t, b.ws, "", trigger.StateFired)); n != 1 {
		t.Fatalf("%d firings recorded, want the one", n)
	}
	if rows := b.sessionRows(); len(rows) != 2 {
		t.Fatalf("%d sessions, want the parked one and the triggered one: %+v", len(rows), rows)
	}
}

// TestBinaryScheduleFiresOnRunningHost: a schedule fires on a running
// host, which says it is kept alive by it; each firing is recorded with
// the time it was due and creates a session.
func TestBinaryScheduleFiresOnRunningHost(t *testing.T) {
	b := newServeSandbox(t)
	b.configure(triggerConfig(b.ws, `
[[triggers]]
name = "tick"
schedule = "@every 1s"
agent = "quick"
prompt = "tick at {{ .firing.time }}"
`))
	b.detach()
	st := b.hostStatus()
	if len(st.KeptAlive) != 1 || st.KeptAlive[0] != `tick (schedule "@every 1s")` {
		t.Fatalf("serve --status --json: kept alive by %q", st.KeptAlive)
	}
	if r := b.run("serve", "--status").want(t, ExitOK); !strings.Contains(r.out, `kept alive by triggers: tick (schedule "@every 1s")`) {
		t.Fatalf("serve --status:\n%s", r.out)
	}
	poll.Until(t, "a firing started", func() bool { return len(firings(t, b.ws, "tick", trigger.StateStarted)) >= 1 })
	f := firings(t, b.ws, "tick", trigger.StateStarted)[0]
	fired := firings(t, b.ws, "tick", trigger.StateFired)[0]
	if fired.Scheduled == nil || fired.ID != f.ID {
		t.Fatalf("fired %+v, started %+v", fired, f)
	}
	// The figure the issue asks for: how late after its due time a
	// firing is recorded, and its session created.
	t.Logf("the firing due %s was recorded %s after it, its session created %s after it",
		fired.Scheduled.Format(time.RFC3339), fired.Time.Sub(*fired.Scheduled), f.Time.Sub(*fired.Scheduled))
	if rec := record(t, b.ws, f.Session); !strings.HasPrefix(rec.Instructions, "tick at ") || rec.Title != "tick (trigger)" {
		t.Fatalf("the scheduled session: %q %q", rec.Title, rec.Instructions)
	}
}

// TestBinaryEventStartsWorkflow: a workflow trigger runs the workflow on
// the host, its input made from the event's data; the same event id fires
// once, and the run's key keeps a second firing with the same data from
// running again. config check names a broken trigger's file and line.
func TestBinaryEventStartsWorkflow(t *testing.T) {
	b := newServeSandbox(t)
	b.configure(triggerConfig(b.ws, `
[[triggers]]
name = "review"
on_event = "pr"
workflow = "implement"
input = '{"requestId": {{ json .event.data.id }}, "request": {{ json .event.data.request }}}'
`))
	// The user's own workflows are trusted.
	writeFile(t, filepath.Join(filepath.Dir(b.config), "workflows", "implement.toml"), strings.ReplaceAll(implementWorkflow, "AGENT", "quick"))
	b.detach()
	b.run("events", "fire", "pr", "--data", `{"id": "pr-9", "request": "add a note"}`).want(t, ExitOK)
	runID := workflow.RunID("implement", "pr-9")
	poll.Until(t, "the triggered run to complete", func() bool {
		r := b.run("workflow", "show", runID, "--json")
		var run runs.Run
		return r.code == ExitOK && json.Unmarshal([]byte(r.out), &run) == nil && run.Status == runs.Completed
	})
	if f := firings(t, b.ws, "review", trigger.StateStarted); len(f) != 1 || f[0].Run != runID {
		t.Fatalf("firings %+v, want one that started run %s", f, runID)
	}
	// Another event with the same data: a firing of its own, but the run's
	// key answers with the recorded run; no second session.
	b.run("events", "fire", "pr", "--data", `{"id": "pr-9", "request": "add a note"}`).want(t, ExitOK)
	poll.Until(t, "the second firing", func() bool { return len(firings(t, b.ws, "review", trigger.StateStarted)) == 2 })
	if ids := b.sessionIDs(); len(ids) != 1 {
		t.Fatalf("sessions %v, want the one run's", ids)
	}
	b.stopHost()

	b.configure(triggerConfig(b.ws, `
[[triggers]]
name = "bad"
schedule = "every night"
prompt = "p"
`))
	r := b.run("config").want(t, ExitUsage)
	if !strings.Contains(r.out+r.err, b.config+":10") || !strings.Contains(r.out+r.err, "schedule") {
		t.Fatalf("config check:\n%s%s", r.out, r.err)
	}
}

// TestBinaryChangeTriggerOnRunningHost: a change of a watched file fires
// the change trigger on a running host with the changed path in its
// prompt; the host says the trigger keeps it alive.
func TestBinaryChangeTriggerOnRunningHost(t *testing.T) {
	b := newServeSandbox(t)
	b.configure(triggerConfig(b.ws, `
[[triggers]]
name = "notes"
on_change = "notes/*.md"
agent = "quick"
prompt = "Changed:{{ range .changed }} {{ . }}{{ end }}"
`))
	st := b.detach()
	if len(st.KeptAlive) != 1 || st.KeptAlive[0] != `notes (on_change "notes/*.md")` {
		t.Fatalf("serve --detach --json: kept alive by %q", st.KeptAlive)
	}
	writeFile(t, filepath.Join(b.ws, "other.txt"), "not watched")
	if err := os.MkdirAll(filepath.Join(b.ws, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(b.ws, "notes", "a.md"), "# a")
	poll.Until(t, "the change trigger's session", func() bool { return len(firings(t, b.ws, "notes", trigger.StateStarted)) == 1 })
	f := firings(t, b.ws, "notes", trigger.StateStarted)[0]
	if rec := record(t, b.ws, f.Session); rec.Instructions != "Changed: notes/a.md" {
		t.Fatalf("the change trigger's prompt: %q", rec.Instructions)
	}
}
