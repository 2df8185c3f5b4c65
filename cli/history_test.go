package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
)

// TestHistoryCommands: a demo run's turn commit is listed, diffed and
// blamed; a file edited since is restored only with --yes, and the restore
// is itself a commit.
func TestHistoryCommands(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	id := demoRun(t, ws)
	r := cli(t, "sessions", "history", id, "-w", ws, "--files").want(t, ExitOK)
	if !strings.Contains(r.out, id+" turn 1") || !strings.Contains(r.out, harness.DemoFile) {
		t.Errorf("history:\n%s", r.out)
	}
	rows := jsonOut[[]commitRow](t, cli(t, "sessions", "history", "-w", ws, "--json").want(t, ExitOK))
	if len(rows) != 2 || rows[0].Kind != "turn" || rows[0].SessionID != id || rows[1].Kind != "snapshot" {
		t.Fatalf("history --json: %+v", rows)
	}
	byTurn := cli(t, "sessions", "diff", id[:15], "1", "-w", ws).want(t, ExitOK)
	byHash := cli(t, "sessions", "diff", rows[0].Hash[:10], "-w", ws).want(t, ExitOK)
	if byTurn.out != byHash.out || !strings.Contains(byTurn.out, "+# Written by the Atelier demo") {
		t.Errorf("diff by turn and by commit:\n%s\n---\n%s", byTurn.out, byHash.out)
	}
	if r := cli(t, "sessions", "diff", id, "1", "--stat", "-w", ws).want(t, ExitOK); !strings.Contains(r.out, "added") {
		t.Errorf("diff --stat: %s", r.out)
	}
	cli(t, "sessions", "diff", id, "7", "-w", ws).want(t, ExitUsage)
	cli(t, "sessions", "diff", "zzzz", "-w", ws).want(t, ExitUsage)

	r = cli(t, "sessions", "blame", harness.DemoFile, "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, id+" turn 1") {
		t.Errorf("blame: %s", r.out)
	}
	cli(t, "sessions", "blame", "../outside", "-w", ws).want(t, ExitUsage)

	file := filepath.Join(ws, harness.DemoFile)
	orig, _ := os.ReadFile(file)
	writeFile(t, file, "edited by hand\n")
	r = cli(t, "sessions", "restore", id, "1", "-w", ws, "--files", harness.DemoFile).want(t, ExitOK)
	if !strings.Contains(r.out, "modify "+harness.DemoFile) || !strings.Contains(r.out, "changed since outside any turn") {
		t.Errorf("restore preview:\n%s", r.out)
	}
	if got, _ := os.ReadFile(file); string(got) != "edited by hand\n" {
		t.Fatal("the preview changed the file")
	}
	r = cli(t, "sessions", "restore", id, "1", "-w", ws, "--files", harness.DemoFile, "--yes").want(t, ExitOK)
	if got, _ := os.ReadFile(file); string(got) != string(orig) {
		t.Fatalf("after restore: %q", got)
	}
	rows = jsonOut[[]commitRow](t, cli(t, "sessions", "history", "-w", ws, "--json"))
	if rows[0].Kind != "restore" {
		t.Errorf("the restore is not a commit: %+v", rows[0])
	}
	cli(t, "sessions", "restore", id, "1", "-w", ws, "--yes").want(t, ExitUsage) // nothing to restore
}
