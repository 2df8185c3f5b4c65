package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/api/client"
)

// TestInstancesAloneLists: `atelier instances` without a subcommand lists
// the workspace and its instances as `instances list` does, in a table or
// with --json, as `atelier sessions` lists the sessions.
func TestInstancesAloneLists(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	decode := func(r result) []client.InstanceInfo {
		t.Helper()
		var list []client.InstanceInfo
		if err := json.Unmarshal([]byte(r.out), &list); err != nil {
			t.Fatalf("not a JSON list: %v\n%s", err, r.out)
		}
		return list
	}
	alone := decode(cli(t, "instances", "-w", ws, "--json").want(t, ExitOK))
	listed := decode(cli(t, "instances", "list", "-w", ws, "--json").want(t, ExitOK))
	if len(alone) != 1 || alone[0].ID != "main" || alone[0].Kind != listed[0].Kind || alone[0].Path != listed[0].Path {
		t.Errorf("instances --json = %+v, instances list --json = %+v", alone, listed)
	}
	r := cli(t, "instances", "-w", ws).want(t, ExitOK)
	if lines := strings.Split(strings.TrimSpace(r.out), "\n"); len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "ID") || !strings.HasPrefix(lines[1], "main") {
		t.Errorf("instances printed %q, want the table of instances list", r.out)
	}
}
