package cli

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/config"
)

// TestEngineURL: a machine drives another's engine with --engine (or
// ATELIER_ENGINE) and its token: run, the listings, show, actions, grants
// and exec go through the API, the engine's own configuration fills what the command
// leaves out, and nothing is opened or started on the client's folder. A
// missing token, an engine that does not answer and a command that needs
// the local folder each fail with a clear error and leave no state here.
func TestEngineURL(t *testing.T) {
	t.Parallel()
	far := newServeSandbox(t) // the other machine
	far.configure(`default_agent = "far"

[agents.far]
harness = "demo"
tools = ["read_file"]
`)
	addr := loopbackAddr(t)
	r := far.run("serve", "--detach", "--json", "--listen", addr).want(t, ExitOK)
	m := tokenLine.FindStringSubmatch(r.err)
	if m == nil {
		t.Fatalf("no token line in:\n%s", r.err)
	}
	url := "http://" + addr

	near := newSandbox(t) // this machine: its own home, configuration and folder
	base := near.env
	near.env = append(append([]string(nil), base...), "ATELIER_TOKEN="+m[1])
	r = near.run("run", "--engine", url, "hello from afar")
	if r.code != ExitOK || !strings.Contains(r.out, "hello from afar") {
		t.Fatalf("run --engine: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
	near.env = append(near.env, "ATELIER_ENGINE="+url)
	var rows []sessionRow
	out := near.run("sessions", "--json").want(t, ExitOK).out
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("sessions --json through the engine: %v\n%s", err, out)
	}
	if rows[0].Agent != "far" {
		t.Errorf("the session's agent is %q: the engine's default agent (far) should fill in what the command left out", rows[0].Agent)
	}
	var d sessionDetail
	out = near.run("sessions", "show", rows[0].ID, "--json").want(t, ExitOK).out
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Messages) < 2 || d.Session.ID != rows[0].ID {
		t.Fatalf("show through the engine: %v\n%s", err, out)
	}
	near.run("actions", "--json").want(t, ExitOK)
	// The grants and an exec are the engine's too: before, both opened a
	// store in this machine's folder (the check below catches it).
	if out := near.run("sessions", "grants", rows[0].ID, "--json").want(t, ExitOK).out; strings.TrimSpace(out) != "[]" {
		t.Errorf("grants through the engine: %q", out)
	}
	idle := strings.TrimSpace(near.run("sessions", "create", "--no-start", "wait here").want(t, ExitOK).out)
	if r := near.run("sessions", "exec", idle, "--", "pwd"); r.code != ExitOK || !strings.Contains(r.out, far.ws) {
		t.Errorf("exec through the engine: exit %d, stdout %q (want the far workspace %s), stderr %s", r.code, r.out, far.ws, r.err)
	}

	// What needs this machine's folder says so; nothing runs here.
	if r := near.run("sessions", "history"); r.code != ExitUsage || !strings.Contains(r.err, "not available") {
		t.Errorf("history with --engine: exit %d: %s", r.code, r.err)
	}
	// The studio opens on the engine (TestAttachStudio drives it); a
	// folder of this machine or --in-process does not go with it.
	if r := near.run(near.ws); r.code != ExitUsage || !strings.Contains(r.err, "DIR names a workspace on this machine") {
		t.Errorf("the studio with --engine and a DIR: exit %d: %s", r.code, r.err)
	}
	if r := near.run("--in-process"); r.code != ExitUsage || !strings.Contains(r.err, "--in-process") {
		t.Errorf("the studio with --engine and --in-process: exit %d: %s", r.code, r.err)
	}
	if r := near.run("attach", "http://"+loopbackAddr(t), "--engine", url); r.code != ExitUsage || !strings.Contains(r.err, "names another engine") {
		t.Errorf("attach to another engine than --engine's: exit %d: %s", r.code, r.err)
	}
	// No token, or no engine: an error, never the local folder.
	near.env = append(append([]string(nil), base...), "ATELIER_ENGINE="+url)
	if r := near.run("sessions", "pause", rows[0].ID); r.code != ExitFailed || !strings.Contains(r.err, "token") {
		t.Errorf("without a token: exit %d: %s", r.code, r.err)
	}
	near.env = append(append([]string(nil), base...), "ATELIER_ENGINE=http://"+loopbackAddr(t), "ATELIER_TOKEN="+m[1])
	for _, args := range [][]string{{"sessions"}, {"run", "hi"}, {"sessions", "create", "hi"}, {}} {
		if r := near.run(args...); r.code != ExitFailed || !strings.Contains(r.err, "the engine at") {
			t.Errorf("%v with no engine there: exit %d: %s", args, r.code, r.err)
		}
	}
	if _, err := os.Lstat(filepath.Join(near.ws, ".state")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the client's folder got a state: %v", err)
	}
	if pid := near.hostPID(); pid != 0 {
		t.Errorf("a host was started on the client's folder: %d", pid)
	}
	far.run("serve", "--stop").want(t, ExitOK)
}

// TestEngineFlagRefusedWhereLocal: a command that acts on this machine
// only refuses an explicit --engine instead of ignoring it.
func TestEngineFlagRefusedWhereLocal(t *testing.T) {
	for _, args := range [][]string{{"serve", "--status"}, {"trust"}, {"config"}, {"agents"}} {
		r := cli(t, append(args, "--engine", "http://127.0.0.1:9")...)
		if r.code != ExitUsage || !strings.Contains(r.err, "--engine does not apply") {
			t.Errorf("%v --engine: exit %d: %s", args, r.code, r.err)
		}
	}
}

// TestWorkspaceRuleAllowsOnTheHost: a rule kept for the workspace (what W
// in the studio writes) lets the host's engine run that command without
// asking: with --approve deny, the demo's listing still runs, and the run
// says which rule allowed it.
func TestWorkspaceRuleAllowsOnTheHost(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	b.configure("default_agent = \"demo\"\n")
	store := config.NewRulesStore(filepath.Join(filepath.Dir(b.config), config.RulesFileName))
	if err := store.Add(b.ws, config.WorkspaceRule{Tool: "exec", Subject: "ls -la", Added: time.Now()}); err != nil {
		t.Fatal(err)
	}
	r := b.run("run", "--approve", "deny", "--json", "make a note")
	if !strings.Contains(r.out, "allowed by this workspace's rule: exec `ls -la`") {
		t.Errorf("the run should say the rule allowed the listing:\n%s\n%s", r.out, r.err)
	}
}
