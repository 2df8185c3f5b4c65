package config

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTriggersLoad: the workspace's triggers come from the user's table
// for it and from its trusted .atelier.toml, each parsed (schedule,
// templates) and placed; another workspace's table is not this one's.
func TestTriggersLoad(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines(
		`[[workspaces."`+f.ws+`".triggers]]`,
		`name = "nightly"`,
		`schedule = "@every 30m"`,
		`agent = "demo"`,
		`prompt = "Tidy up."`,
		``,
		`[[workspaces."/elsewhere".triggers]]`,
		`name = "other"`,
		`on_event = "x"`,
		`prompt = "not this workspace"`,
	))
	f.writeWorkspace(lines(
		`[[triggers]]`,
		`name = "deployed"`,
		`on_event = "deploy-done"`,
		`prompt = "Version {{ .event.data.version }} is out."`,
		``,
		`[[triggers]]`,
		`name = "docs"`,
		`on_change = "docs/**/*.md"`,
		`workflow = "review"`,
		`input = '{"paths": {{ json .changed }}}'`,
	))
	f.trust()
	cfg := f.load()
	if len(cfg.Triggers) != 3 {
		t.Fatalf("triggers %+v, want nightly, deployed, docs", cfg.Triggers)
	}
	n, d, w := cfg.Triggers[0], cfg.Triggers[1], cfg.Triggers[2]
	if n.Name != "nightly" || n.Cron == nil || n.File != f.user || n.Line != 1 || !n.KeepsAlive() {
		t.Errorf("nightly: %+v", n)
	}
	from := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	if got := n.Cron.Next(from); !got.Equal(from.Add(30 * time.Minute)) {
		t.Errorf("@every 30m after 10:00 is %v", got)
	}
	if d.Name != "deployed" || d.File != f.wsFile() || d.Line != 1 || d.KeepsAlive() || d.Condition() != `on_event "deploy-done"` {
		t.Errorf("deployed: %+v (%s)", d, d.Condition())
	}
	var b bytes.Buffer
	if err := d.PromptTemplate.Execute(&b, map[string]any{"event": map[string]any{"data": map[string]any{"version": 7}}}); err != nil || b.String() != "Version 7 is out." {
		t.Errorf("deployed renders %q, %v", b.String(), err)
	}
	b.Reset()
	if err := d.PromptTemplate.Execute(&b, map[string]any{"event": map[string]any{"data": map[string]any{}}}); err == nil {
		t.Errorf("a missing key renders %q: want an error (missingkey=error)", b.String())
	}
	found := false
	for _, e := range cfg.Effective() {
		if e.Key == "triggers.nightly" {
			found = e.Value == `{schedule = "@every 30m", agent = "demo"}` && e.File == f.user && e.Line == 1
		}
	}
	if !found {
		t.Errorf("config lists the triggers: %+v", cfg.Effective())
	}
	if w.Line != 6 || w.Starts() != "workflow review" || !w.KeepsAlive() || w.InputTemplate == nil {
		t.Errorf("docs: %+v", w)
	}
	b.Reset()
	if err := w.InputTemplate.Execute(&b, map[string]any{"changed": []string{"docs/a.md"}}); err != nil || b.String() != `{"paths": ["docs/a.md"]}` {
		t.Errorf("docs input renders %q, %v", b.String(), err)
	}
}

// TestTriggersUntrusted: an untrusted workspace file's triggers are not
// obeyed (its notice says so); the user's own are.
func TestTriggersUntrusted(t *testing.T) {
	f := newFixture(t)
	f.writeWorkspace(lines(`[[triggers]]`, `name = "x"`, `on_event = "e"`, `prompt = "p"`))
	if cfg := f.load(); len(cfg.Triggers) != 0 || len(cfg.Notices) == 0 {
		t.Fatalf("untrusted: triggers %+v, notices %v", cfg.Triggers, cfg.Notices)
	}
}

// TestTriggerProblems: every mistake in a trigger is reported with its
// file and line, and nothing loads.
func TestTriggerProblems(t *testing.T) {
	trig := func(ls ...string) string { return lines(append([]string{"[[triggers]]"}, ls...)...) }
	tests := []struct {
		name, content string
		line          int
		key, msg      string
	}{
		{"no condition", trig(`name = "a"`, `prompt = "p"`), 1, "triggers[0]", "exactly one of on_event, schedule and on_change (it has 0)"},
		{"two conditions", trig(`name = "a"`, `on_event = "e"`, `schedule = "@hourly"`, `prompt = "p"`), 1, "triggers[0]", "(it has 2)"},
		{"no name", trig(`on_event = "e"`, `prompt = "p"`), 1, "triggers[0]", "needs name"},
		{"bad name", trig(`name = "a b"`, `on_event = "e"`, `prompt = "p"`), 2, "triggers[0].name", "letters, digits"},
		{"bad schedule", trig(`name = "a"`, `schedule = "every day"`, `prompt = "p"`), 3, "triggers[0].schedule", "cron expression"},
		{"six fields", trig(`name = "a"`, `schedule = "0 0 3 * * *"`, `prompt = "p"`), 3, "triggers[0].schedule", "cron expression"},
		{"bad every", trig(`name = "a"`, `schedule = "@every soon"`, `prompt = "p"`), 3, "triggers[0].schedule", "cron expression"},
		{"bad glob", trig(`name = "a"`, `on_change = "src/[a"`, `prompt = "p"`), 3, "triggers[0].on_change", "glob"},
		{"bad event", trig(`name = "a"`, `on_event = "has space"`, `prompt = "p"`), 3, "triggers[0].on_event", "event name"},
		{"nothing started", trig(`name = "a"`, `on_event = "e"`), 1, "triggers[0]", "needs prompt"},
		{"both", trig(`name = "a"`, `on_event = "e"`, `prompt = "p"`, `workflow = "w"`), 1, "triggers[0]", "not both"},
		{"input without workflow", trig(`name = "a"`, `on_event = "e"`, `prompt = "p"`, `input = "{}"`), 5, "triggers[0].input", "goes with workflow"},
		{"bad template", trig(`name = "a"`, `on_event = "e"`, `prompt = "{{ .event.data "`), 4, "triggers[0].prompt", "not a template"},
		{"unknown key", trig(`name = "a"`, `on_event = "e"`, `prompt = "p"`, `promt = "x"`), 5, "triggers[0].promt", `did you mean "prompt"`},
		{"wrong type", trig(`name = "a"`, `on_event = 3`, `prompt = "p"`), 3, "triggers[0].on_event", "must be a string"},
		{"empty prompt", trig(`name = "a"`, `on_event = "e"`, `prompt = " "`), 4, "triggers[0].prompt", "must not be empty"},
		{"twice", trig(`name = "a"`, `on_event = "e"`, `prompt = "p"`) + trig(`name = "a"`, `on_event = "e"`, `prompt = "p"`), 6, "triggers[1].name", "a second trigger"},
		{"not an array", lines(`triggers = "x"`), 1, "triggers", "array of tables"},
		{"unknown agent", trig(`name = "a"`, `on_event = "e"`, `agent = "ghost"`, `prompt = "p"`), 1, "triggers", `no agent named "ghost"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.writeWorkspace(tc.content)
			f.trust()
			ce := f.loadErr()
			want := fmt.Sprintf("%s:%d", f.wsFile(), tc.line)
			for _, p := range ce.Problems {
				if strings.HasPrefix(p.Error(), want) && p.Key == tc.key && strings.Contains(p.Msg, tc.msg) {
					return
				}
			}
			t.Fatalf("want %s: %s: …%s…, got:\n%v", want, tc.key, tc.msg, ce)
		})
	}
}

// TestTriggersWhereTheyBelong: a user file's top-level [[triggers]] (no
// workspace) and a workspace file's [workspaces] table are refused with
// where to write them; a relative workspace path too.
func TestTriggersWhereTheyBelong(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines(`[[triggers]]`, `name = "a"`, `on_event = "e"`, `prompt = "p"`))
	if ce := f.loadErr(); !strings.Contains(ce.Error(), f.user+":1") || !strings.Contains(ce.Error(), "triggers belong to a workspace") {
		t.Errorf("user [[triggers]]: %v", ce)
	}
	f.writeUser(lines(`[[workspaces."src/app".triggers]]`, `name = "a"`, `on_event = "e"`, `prompt = "p"`))
	if ce := f.loadErr(); !strings.Contains(ce.Error(), "absolute path") {
		t.Errorf("relative workspace: %v", ce)
	}
	f.writeUser("")
	f.writeWorkspace(lines(`[[workspaces."/x".triggers]]`, `name = "a"`, `on_event = "e"`, `prompt = "p"`))
	f.trust()
	if ce := f.loadErr(); !strings.Contains(ce.Error(), f.wsFile()+":1") || !strings.Contains(ce.Error(), "only your own config.toml") {
		t.Errorf("workspace [workspaces]: %v", ce)
	}
}

// TestTriggersSameNameInBothFiles: a name the user's table and the
// workspace file both use is an error naming both places.
func TestTriggersSameNameInBothFiles(t *testing.T) {
	f := newFixture(t)
	f.writeUser(lines(`[[workspaces."~/ws".triggers]]`, `name = "a"`, `on_event = "e"`, `prompt = "p"`))
	f.writeWorkspace(lines(``, `[[triggers]]`, `name = "a"`, `on_event = "e"`, `prompt = "p"`))
	f.trust()
	ce := f.loadErr()
	if !strings.Contains(ce.Error(), f.wsFile()+":2") || !strings.Contains(ce.Error(), "the first is at "+f.user+":1") {
		t.Errorf("got %v", ce)
	}
}
