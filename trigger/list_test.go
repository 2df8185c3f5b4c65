package trigger

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// writeRecord writes the record as a host left it.
func writeRecord(t *testing.T, ws string, lines ...Firing) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(ws, sessions.StateDir), 0o700); err != nil {
		t.Fatal(err)
	}
	var b []byte
	for _, f := range lines {
		l, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, l...), '\n')
	}
	if err := os.WriteFile(filepath.Join(ws, sessions.StateDir, File), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestListGivesLastFiringAndNextDue: each configured trigger with its
// newest firing (armed lines aside), and a schedule's next due time
// counted from its last firing as a host arms it.
func TestListGivesLastFiringAndNextDue(t *testing.T) {
	ws := t.TempDir()
	ts := triggersOf(t, ws, `
[[triggers]]
name = "deployed"
on_event = "deploy"
agent = "demo"
prompt = "check"

[[triggers]]
name = "nightly"
schedule = "@every 30m"
agent = "demo"
prompt = "tidy"

[[triggers]]
name = "quiet"
on_event = "never"
agent = "demo"
prompt = "x"
`)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	due := now.Add(-10 * time.Minute)
	writeRecord(t, ws,
		Firing{ID: "deployed@event/1", Trigger: "deployed", State: StateFired, Time: now.Add(-time.Hour), Cause: "event deploy", Text: "check"},
		Firing{ID: "deployed@event/1", Trigger: "deployed", State: StateStarted, Time: now.Add(-time.Hour), Session: "s1"},
		Firing{ID: "nightly@schedule/x", Trigger: "nightly", State: StateFired, Time: due, Scheduled: &due, Schedule: "@every 30m"},
		Firing{ID: "nightly@schedule/x", Trigger: "nightly", State: StateStarted, Time: due, Session: "s2"},
		Firing{Trigger: "nightly", State: StateArmed, Time: due.Add(-time.Hour), Schedule: "@every 30m"},
	)
	got, err := List(ws, ts, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d triggers: %+v", len(got), got)
	}
	d, n, q := got[0], got[1], got[2]
	if d.Name != "deployed" || d.Condition != `on_event "deploy"` || d.Starts != "agent demo" || d.Last == nil ||
		d.Last.State != StateStarted || d.Last.Session != "s1" || d.Next != nil {
		t.Errorf("deployed: %+v", d)
	}
	if n.Last == nil || n.Last.Session != "s2" || n.Next == nil || !n.Next.Equal(due.Add(30*time.Minute)) || !n.KeepsAlive {
		t.Errorf("nightly: %+v (next %v, want %v)", n, n.Next, due.Add(30*time.Minute))
	}
	if q.Last != nil || q.Next != nil {
		t.Errorf("quiet: %+v", q)
	}
}

// TestReportsWordTheFiringsSince: the firings that ended after a time,
// worded as the host's notices, with the cause of their fired line.
func TestReportsWordTheFiringsSince(t *testing.T) {
	ws := t.TempDir()
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	writeRecord(t, ws,
		Firing{ID: "a@event/1", Trigger: "a", State: StateFired, Time: t0, Cause: "event deploy ({\"v\":1})"},
		Firing{ID: "a@event/1", Trigger: "a", State: StateStarted, Time: t0, Session: "old"},
		Firing{ID: "a@event/2", Trigger: "a", State: StateFired, Time: t0.Add(time.Minute), Cause: "event deploy ({\"v\":2})"},
		Firing{ID: "a@event/2", Trigger: "a", State: StateStarted, Time: t0.Add(time.Minute), Session: "s2"},
		Firing{ID: "b@event/3", Trigger: "b", State: StateFired, Time: t0.Add(2 * time.Minute), Cause: "event x"},
		Firing{ID: "b@event/3", Trigger: "b", State: StateFailed, Time: t0.Add(2 * time.Minute), Error: "no such agent"},
		Firing{Trigger: "c", State: StateArmed, Time: t0.Add(3 * time.Minute)},
	)
	got, err := Reports(ws, t0)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range got {
		texts = append(texts, r.Text)
	}
	want := []string{`trigger a fired (event deploy ({"v":2})): started session s2`, "trigger b (event x) could not start: no such agent"}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") || got[0].Session != "s2" || !got[1].Failed {
		t.Errorf("reports:\n%s\nwant:\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
}
