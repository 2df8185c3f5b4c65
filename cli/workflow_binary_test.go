package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/atelier-studio/atelier/harness/modeltest"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/workflow"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// implementWorkflow is the example for the sandbox's agents:
// exec → ask → exec → ask with an output schema. AGENT and ASK are
// replaced.
const implementWorkflow = `description = "Implement a request, test it, report"
agent = "AGENT"
key = "requestId"

[input]
type = "object"
required = ["requestId", "request"]
properties = { requestId = { type = "string" }, request = { type = "string" } }

[[steps]]
key = "install"
exec = "echo installed >> install.log"

[[steps]]
key = "implement"
ask = "{{ .input.request }}"

[[steps]]
key = "test"
exec = "test -f install.log && echo tests-ok"

[[steps]]
key = "report"
ask = "Tests passed. Summarize the changes. Test output:\n{{ .steps.test.stdout }}"
output = { type = "object", required = ["summary"], properties = { summary = { type = "string" } } }
`

// writeWorkflow writes the workspace's implement workflow for agent.
func (b *sandbox) writeWorkflow(agent string) {
	b.t.Helper()
	writeFile(b.t, filepath.Join(b.ws, workflow.WorkspaceDir, "implement.toml"), strings.ReplaceAll(implementWorkflow, "AGENT", agent))
}

// sessionIDs lists every session of the sandbox's workspace.
func (b *sandbox) sessionIDs() []string {
	b.t.Helper()
	r := b.run("sessions", "--all", "--json").want(b.t, ExitOK)
	var rows []sessionRow
	if err := json.Unmarshal([]byte(r.out), &rows); err != nil {
		b.t.Fatalf("sessions --json: %v\n%s", err, r.out)
	}
	var ids []string
	for _, row := range rows {
		ids = append(ids, row.ID)
	}
	return ids
}

// execCount counts the audit log's exec lines of session id whose command
// has cmd in it.
func (b *sandbox) execCount(id, cmd string) int {
	b.t.Helper()
	data, err := os.ReadFile(filepath.Join(b.ws, sessions.StateDir, "sessions", id, "turns.jsonl"))
	if err != nil {
		b.t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"kind":"exec"`) && strings.Contains(l, cmd) {
			n++
		}
	}
	return n
}

// showRun reads a run's record through `workflow show --json`.
func (b *sandbox) showRun(id string) runs.Run {
	b.t.Helper()
	r := b.run("workflow", "show", id, "--json").want(b.t, ExitOK)
	var run runs.Run
	if err := json.Unmarshal([]byte(r.out), &run); err != nil {
		b.t.Fatalf("workflow show --json: %v\n%s", err, r.out)
	}
	return run
}

// TestBinaryWorkflow: the workflow, untrusted, is refused before
// anything runs; trusted, it completes and prints the report's JSON; the
// same key and input again prints it again and creates and runs nothing;
// another input with the key is a conflict.
func TestBinaryWorkflow(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	b.writeWorkflow("quick")
	in := `{"requestId":"fix-001","request":"add a note"}`
	r := b.run("workflow", "run", "implement", "--input", in).want(t, ExitUsage)
	if !strings.Contains(r.err, "atelier trust") {
		t.Errorf("the untrusted workflow says:\n%s", r.err)
	}
	if ids := b.sessionIDs(); len(ids) != 0 {
		t.Fatalf("an untrusted workflow made sessions %v", ids)
	}
	b.run("trust", "--yes").want(t, ExitOK)

	r = b.run("workflow", "run", "implement", "--input", in).want(t, ExitOK)
	var report struct {
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.out), &report); err != nil || report.Summary == "" {
		t.Fatalf("the result %q: %v", r.out, err)
	}
	ids := b.sessionIDs()
	if len(ids) != 1 {
		t.Fatalf("sessions %v, want one", ids)
	}
	id := ids[0]
	if row := b.record(id); row.Status != string(sessions.Ended) || row.Turns != 2 {
		t.Errorf("the run's session: %+v (want ended, after 2 turns)", row)
	}
	runID := workflow.RunID("implement", "fix-001")
	run := b.showRun(runID)
	if run.Status != runs.Completed || run.Session != id || len(run.Steps) != 4 || run.Steps[2].Stdout != "tests-ok\n" {
		t.Fatalf("the run: %+v", run)
	}

	// The same key and input (written otherwise): the recorded result.
	again := b.run("workflow", "run", "implement", "--input", `{ "request": "add a note", "requestId": "fix-001" }`).want(t, ExitOK)
	if again.out != r.out {
		t.Errorf("the repeat printed\n%s\nwant\n%s", again.out, r.out)
	}
	if ids := b.sessionIDs(); len(ids) != 1 {
		t.Errorf("the repeat made sessions: %v", ids)
	}
	if n := b.execCount(id, "install.log"); n != 2 { // install, and test's check of its file
		t.Errorf("%d execs name install.log, want 2", n)
	}
	if log, _ := os.ReadFile(filepath.Join(b.ws, "install.log")); string(log) != "installed\n" {
		t.Errorf("install.log %q: install ran again", log)
	}
	if row := b.record(id); row.Turns != 2 {
		t.Errorf("the repeat ran turns: %d", row.Turns)
	}
	if after := b.showRun(runID); !after.Updated.Equal(run.Updated) {
		t.Errorf("the repeat changed the record: %v, was %v", after.Updated, run.Updated)
	}

	r = b.run("workflow", "run", "implement", "--input", `{"requestId":"fix-001","request":"something else"}`).want(t, ExitUsage)
	if !strings.Contains(r.err, "another input") {
		t.Errorf("the conflict says:\n%s", r.err)
	}
	r = b.run("workflow", "list").want(t, ExitOK)
	if !strings.Contains(r.out, "implement  workspace  Implement a request, test it, report") {
		t.Errorf("workflow list:\n%s", r.out)
	}
}

// TestBinaryWorkflowKilledMidStep: the host is killed -9 while the run's
// ask step is in its turn; the next host takes the run up by itself (a
// resume attaches to it), and no step done runs again.
func TestBinaryWorkflowKilledMidStep(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	b.writeWorkflow("quick")
	b.run("trust", "--yes").want(t, ExitOK)
	in := `{"requestId":"k1","request":"` + longPrompt + `"}`
	p := b.start("workflow", "run", "implement", "--input", in)
	runID := workflow.RunID("implement", "k1")
	var id string
	poll.Until(t, "the implement step's turn to run", func() bool {
		ids := b.sessionIDs()
		if len(ids) != 1 {
			return false
		}
		id = ids[0]
		return b.keys(id)["wf/implement"].State == sessions.KeyStarted
	})
	b.killHost()
	p.wait(t) // its host is gone: it says so and exits
	r := b.run("workflow", "resume", runID).want(t, ExitOK)
	if !strings.Contains(r.out, `"summary"`) {
		t.Errorf("the resumed run printed %q", r.out)
	}
	run := b.showRun(runID)
	if run.Status != runs.Completed || run.Session != id {
		t.Fatalf("the run: %+v", run)
	}
	if log, _ := os.ReadFile(filepath.Join(b.ws, "install.log")); string(log) != "installed\n" {
		t.Errorf("install.log %q: install ran again", log)
	}
	if ids := b.sessionIDs(); len(ids) != 1 {
		t.Errorf("sessions %v, want the one", ids)
	}
	if k := b.keys(id)["wf/implement"]; k.State != sessions.KeyDone {
		t.Errorf("wf/implement is %s", k.State)
	}
}

// TestBinaryWorkflowSuspendedThenKilled: with --approve ask and no
// terminal, the agent's first approval suspends the run (exit 4), its
// session left open; the host is killed -9; workflow resume --approve
// auto goes on from the step it was at and completes, install not run
// again.
func TestBinaryWorkflowSuspendedThenKilled(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	b.configure("default_agent = \"demo\"\n")
	b.writeWorkflow("demo")
	b.run("trust", "--yes").want(t, ExitOK)
	runID := workflow.RunID("implement", "s1")
	r := b.run("workflow", "run", "implement", "--input", `{"requestId":"s1","request":"write a note"}`).want(t, ExitNeedsYou)
	if !strings.Contains(r.err, "atelier workflow resume "+runID) {
		t.Errorf("the suspension says:\n%s", r.err)
	}
	run := b.showRun(runID)
	if run.Status != runs.Suspended || run.Current != "implement" || !strings.Contains(run.Waiting, "approval") {
		t.Fatalf("the run: %+v", run)
	}
	if row := b.record(run.Session); row.Status == string(sessions.Ended) {
		t.Fatal("the suspended run's session was closed")
	}
	b.killHost()
	r = b.run("workflow", "resume", runID, "--approve", "auto").want(t, ExitOK)
	if !strings.Contains(r.out, `"summary"`) {
		t.Errorf("the resumed run printed %q", r.out)
	}
	if log, _ := os.ReadFile(filepath.Join(b.ws, "install.log")); string(log) != "installed\n" {
		t.Errorf("install.log %q: install ran again", log)
	}
	if n := b.execCount(run.Session, "echo installed"); n != 1 {
		t.Errorf("install is in the audit log %d times", n)
	}
}

// TestBinaryWorkflowOpenAI: the same workflow with an OpenAI-compatible
// agent (a fake server speaking the chat-completions stream): two model
// calls, one per ask step; the exec results reach the model only where a
// template put them; the report's JSON is the run's result.
func TestBinaryWorkflowOpenAI(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	srv := modeltest.NewServer(t, chatText("Implemented: a note in NOTES.md."),
		chatText("Here is the report:\n```json\n{\"summary\": \"added a note\"}\n```"))
	b.configure(agentAt(srv, "ask"))
	b.writeWorkflow("m")
	b.run("trust", "--yes").want(t, ExitOK)
	r := b.run("workflow", "run", "implement", "--input", `{"requestId":"o1","request":"add a note"}`).want(t, ExitOK)
	if strings.TrimSpace(r.out) != "{\n  \"summary\": \"added a note\"\n}" {
		t.Errorf("the result:\n%s", r.out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	first, second := string(reqs[0].Body), string(reqs[1].Body)
	if !strings.Contains(first, "add a note") || strings.Contains(first, "installed") {
		t.Errorf("the implement call carries the wrong things:\n%s", first)
	}
	if !strings.Contains(second, `Test output:\ntests-ok`) || !strings.Contains(second, "Implemented: a note") {
		t.Errorf("the report call lacks the test output or the conversation:\n%s", second)
	}
	// Again: the recorded result, no model call.
	again := b.run("workflow", "run", "implement", "--input", `{"requestId":"o1","request":"add a note"}`).want(t, ExitOK)
	if again.out != r.out || len(srv.Requests()) != 2 {
		t.Errorf("the repeat printed %q after %d model calls", again.out, len(srv.Requests()))
	}
}

// TestBinaryWorkflowKilledMidExec: the host is killed -9 while an exec
// step's command runs; its result was never recorded, so the next host
// reports the step uncertain (the run fails, exit 1) and does not run the
// command again.
func TestBinaryWorkflowKilledMidExec(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	writeFile(t, filepath.Join(b.ws, workflow.WorkspaceDir, "slow.toml"), `key = "id"
[input]
type = "object"
required = ["id"]
properties = { id = { type = "string" } }
[[steps]]
key = "slow"
exec = "echo ran >> ran.log; echo $$ > sleeper.pid; exec sleep 60"
`)
	b.run("trust", "--yes").want(t, ExitOK)
	p := b.start("workflow", "run", "slow", "--input", `{"id":"x"}`)
	pidFile := filepath.Join(b.ws, "sleeper.pid")
	var pid int
	poll.Until(t, "the command to run", func() bool {
		data, err := os.ReadFile(pidFile)
		_, serr := fmt.Sscan(string(data), &pid)
		return err == nil && serr == nil
	})
	b.killHost()
	p.wait(t)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Fatal(err)
	}
	runID := workflow.RunID("slow", "x")
	r := b.run("workflow", "resume", runID).want(t, ExitFailed)
	if !strings.Contains(r.err, "may have run") {
		t.Errorf("the uncertain step says:\n%s", r.err)
	}
	run := b.showRun(runID)
	if run.Status != runs.Failed || run.Failure == nil || run.Failure.Kind != runs.FailUncertain {
		t.Errorf("the run: %+v", run)
	}
	if log, _ := os.ReadFile(filepath.Join(b.ws, "ran.log")); string(log) != "ran\n" {
		t.Errorf("ran.log %q: the command ran again", log)
	}
}
