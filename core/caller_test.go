package core

import (
	"os"
	"testing"

	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestControlsRecordTheirClient: every control names who sent it in
// controls.jsonl, the engine's own client by default, and the user who
// ran that client.
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
	if _, err := e.As("").Send(rec.ID, "from the studio"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.As("mcp").Send(rec.ID, "from an agent"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.AsUser("api", "tcp 10.0.0.2:5555").Send(rec.ID, "from afar"); err != nil {
		t.Fatal(err)
	}
	ctls, _, err := e.store.Log(rec.ID).Controls()
	if err != nil {
		t.Fatal(err)
	}
	got, users := map[string]string{}, map[string]string{}
	for _, c := range ctls {
		if c.Outcome == "" {
			got[c.Text], users[c.Text] = c.Client, c.User
		}
	}
	if got["from the studio"] != "studio" || got["from an agent"] != "mcp" || got["from afar"] != "api" {
		t.Fatalf("clients recorded: %v", got)
	}
	// And who ran it: this process's user unless the caller says another.
	me := UserOf(os.Getuid())
	if users["from the studio"] != me || users["from an agent"] != me || users["from afar"] != "tcp 10.0.0.2:5555" {
		t.Fatalf("users recorded: %v, this process's is %q", users, me)
	}
}
