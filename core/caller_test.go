package core

import (
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestControlsRecordTheirClient: every control names who sent it in
// controls.jsonl, the engine's own client by default.
func TestControlsRecordTheirClient(t *testing.T) {
	ws := t.TempDir()
	e, err := Open(ws, Options{Agents: MapResolver{"a": &scripted.Model{}}, Client: "studio"})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, e)
	rec, err := e.Create(CreateOptions{Agent: "a", Mode: sessions.Continuous})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Send(rec.ID, "from the studio"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.As("mcp").Send(rec.ID, "from an agent"); err != nil {
		t.Fatal(err)
	}
	ctls, _, err := e.store.Log(rec.ID).Controls()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range ctls {
		if c.Outcome == "" {
			got[c.Text] = c.Client
		}
	}
	if got["from the studio"] != "studio" || got["from an agent"] != "mcp" {
		t.Fatalf("clients recorded: %v", got)
	}
}
