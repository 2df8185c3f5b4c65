package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/workflow"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// userWorkflow writes workflow name into the user's configuration folder
// (trusted: the user's own) of an isolated configuration.
func userWorkflow(t *testing.T, cfgDir, name, body string) {
	t.Helper()
	writeFile(t, filepath.Join(cfgDir, "atelier", "workflows", name+".toml"), body)
}

// TestWorkflowAskOnATerminal: under --approve ask with the operator at a
// terminal, the run's approvals and question are asked there, answered
// through the host, and the run goes on to its result.
func TestWorkflowAskOnATerminal(t *testing.T) {
	cfg := isolate(t)
	ws := t.TempDir()
	userWorkflow(t, cfg, "implement", strings.ReplaceAll(implementWorkflow, "AGENT", "demo"))
	r := onTerminal(t, "y\n\ny\n", "workflow", "run", "-w", ws, "implement", "--input", `{"requestId":"t1","request":"write a note"}`).want(t, ExitOK)
	for _, want := range []string{"wants to exec ls -la. Allow?", "wants to write_file atelier-demo.md", "asks: Which greeting"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("the terminal was not asked %q:\n%s", want, r.err)
		}
	}
	if !strings.Contains(r.out, `"summary"`) {
		t.Errorf("result %q", r.out)
	}
}

// TestWorkflowRefusals: what cannot be used exits 2 before anything runs;
// a failed step exits 1 and an answer off its schema 5, each recorded with
// its failure and its session closed.
func TestWorkflowRefusals(t *testing.T) {
	cfg := isolate(t)
	ws := t.TempDir()
	userWorkflow(t, cfg, "implement", strings.ReplaceAll(implementWorkflow, "AGENT", "demo"))
	userWorkflow(t, cfg, "later", "isolation = \"vm\"\n"+strings.ReplaceAll(implementWorkflow, "AGENT", "demo"))
	userWorkflow(t, cfg, "fails", `key = "id"
[input]
type = "object"
required = ["id"]
properties = { id = { type = "string" } }
[[steps]]
key = "check"
exec = "echo nope >&2; exit 7"
`)
	userWorkflow(t, cfg, "offschema", `key = "id"
agent = "demo"
[input]
type = "object"
required = ["id"]
properties = { id = { type = "string" } }
[[steps]]
key = "report"
ask = "report"
output = { type = "object", not = {} }
`)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no input", []string{"implement"}, "give the workflow's input with --input"},
		{"not JSON", []string{"implement", "--input", "{"}, "--input is not JSON"},
		{"off the input schema", []string{"implement", "--input", `{"requestId":"x"}`}, "does not match the workflow's input schema"},
		{"unknown workflow", []string{"nothing", "--input", `{}`}, `workflow "nothing": not found`},
		{"isolation", []string{"later", "--input", `{"requestId":"x","request":"y"}`}, `isolation must be in-place, worktree or copy, not "vm"`},
		{"approve", []string{"implement", "--approve", "maybe", "--input", `{"requestId":"x","request":"y"}`}, "--approve must be ask, auto or deny"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := fast(t, append([]string{"workflow", "run", "-w", ws}, c.args...)...).want(t, ExitUsage)
			if !strings.Contains(r.err, c.want) {
				t.Errorf("stderr %q, want %q", r.err, c.want)
			}
		})
	}
	r := fast(t, "workflow", "list", "--runs", "-w", ws).want(t, ExitOK)
	if strings.TrimSpace(r.out) != "no runs" {
		t.Errorf("refusals left runs:\n%s", r.out)
	}

	r = fast(t, "workflow", "run", "-w", ws, "fails", "--input", `{"id":"f"}`).want(t, ExitFailed)
	if !strings.Contains(r.err, `failed at step "check": step "check": the command exited 7`) {
		t.Errorf("the failure says:\n%s", r.err)
	}
	r = fast(t, "workflow", "show", "-w", ws, "--json", workflow.RunID("fails", "f")).want(t, ExitOK)
	var run runs.Run
	if err := json.Unmarshal([]byte(r.out), &run); err != nil {
		t.Fatal(err)
	}
	if run.Status != runs.Failed || run.Steps[0].Stderr != "nope\n" || run.CloseError != "" {
		t.Errorf("the failed run: %+v", run)
	}
	r = fast(t, "workflow", "show", "-w", ws, workflow.RunID("fails", "f")).want(t, ExitOK)
	if !strings.Contains(r.out, "failure   step at step \"check\"") || !strings.Contains(r.out, "check  exec  failed") {
		t.Errorf("workflow show:\n%s", r.out)
	}

	r = fast(t, "workflow", "run", "-w", ws, "offschema", "--approve", "auto", "--input", `{"id":"o"}`).want(t, ExitOutput)
	if !strings.Contains(r.err, "does not match its output schema") {
		t.Errorf("the schema failure says:\n%s", r.err)
	}
	r = fast(t, "workflow", "list", "-w", ws).want(t, ExitOK)
	for _, want := range []string{"implement  user", "later      user   cannot be used:"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("workflow list lacks %q:\n%s", want, r.out)
		}
	}
}

// TestTrustCoversWorkflows: `atelier trust` shows and trusts a workspace's
// workflows even with no .atelier.toml; a workflow changed since is refused
// until trusted again.
func TestTrustCoversWorkflows(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	path := filepath.Join(ws, workflow.WorkspaceDir, "implement.toml")
	writeFile(t, path, strings.ReplaceAll(implementWorkflow, "AGENT", "demo"))
	r := fast(t, "workflow", "list", "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "cannot be used:") || !strings.Contains(r.out, "atelier trust") {
		t.Errorf("an untrusted workflow is listed as:\n%s", r.out)
	}
	r = fast(t, "trust", "--yes", "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "# ==== .atelier/workflows/implement.toml ====") || !strings.Contains(r.out, "covers .atelier/workflows/implement.toml\n") {
		t.Errorf("trust showed:\n%s", r.out)
	}
	r = fast(t, "workflow", "list", "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "implement  workspace  Implement a request") {
		t.Errorf("the trusted workflow is listed as:\n%s", r.out)
	}
	writeFile(t, path, strings.ReplaceAll(implementWorkflow, "AGENT", "demo")+"# changed\n")
	r = fast(t, "workflow", "run", "-w", ws, "implement", "--input", `{"requestId":"c","request":"x"}`).want(t, ExitUsage)
	if !strings.Contains(r.err, "changed since they were trusted") {
		t.Errorf("a changed workflow says:\n%s", r.err)
	}
}
