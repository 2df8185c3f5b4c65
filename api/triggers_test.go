package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/trigger"
	"github.com/atelier-studio/atelier/trigger/state"
)

// TestTriggersRoute: GET /v1/triggers answers the host's triggers with
// their last firing (from the workspace's record) and a schedule's next
// due time; a host without triggers answers an empty list, not null.
func TestTriggersRoute(t *testing.T) {
	ws := t.TempDir()
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(user, []byte(`[[workspaces."`+ws+`".triggers]]
name = "deployed"
on_event = "deploy"
agent = "demo"
prompt = "check"

[[workspaces."`+ws+`".triggers]]
name = "tidy"
schedule = "@every 1h"
agent = "demo"
prompt = "tidy"
`), 0o600); err != nil {
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
	r := openRig(t, ws, Options{Triggers: func() ([]state.Trigger, error) { return trigger.List(ws, cfg.Triggers, time.Now()) }})
	at := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	line, err := json.Marshal(trigger.Firing{ID: "deployed@event/1", Trigger: "deployed", State: trigger.StateStarted, Time: at, Session: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, sessions.StateDir, trigger.File), append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := r.c.Triggers(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%+v", got)
	}
	d, s := got[0], got[1]
	if d.Name != "deployed" || d.Condition != `on_event "deploy"` || d.Starts != "agent demo" || d.Last == nil ||
		d.Last.Session != "s1" || !d.Last.Time.Equal(at) || d.Next != nil {
		t.Errorf("deployed: %+v", d)
	}
	if s.Name != "tidy" || s.Last != nil || s.Next == nil || time.Until(*s.Next) > time.Hour || time.Until(*s.Next) < 58*time.Minute || !s.KeepsAlive {
		t.Errorf("tidy: %+v", s)
	}

	none := newRig(t, Options{})
	resp, err := none.c.Triggers(ctxFor(t, 10*time.Second))
	if err != nil || resp == nil || len(resp) != 0 {
		t.Errorf("no triggers: %v, %v", resp, err)
	}
}
