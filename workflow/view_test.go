package workflow

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/workflow/runs"
)

// TestRunsReadWithoutARunnerShowTheirSteps: a failed run's record, read
// with ReadRuns (no runner), lists every step of the workflow with its
// state (the step after the failure pending), and each step's start and
// the run's end were told on the engine's live view.
func TestRunsReadWithoutARunnerShowTheirSteps(t *testing.T) {
	g := newRig(t, map[string]string{"check.toml": flow(`
[[steps]]
key = "install"
exec = "true"
[[steps]]
key = "check"
exec = "exit 3"
[[steps]]
key = "report"
ask = "report"
`)})
	_, sub := g.eng.Subscribe()
	defer sub.Close()
	run, err := g.run(StartRequest{Workflow: "check", Input: json.RawMessage(`{"id":"r1"}`)})
	if err != nil {
		t.Fatal(err)
	}
	all, err := ReadRuns(g.ws)
	if err != nil || len(all) != 1 || all[0].ID != run.ID {
		t.Fatalf("ReadRuns: %v, %v", all, err)
	}
	var got []string
	for _, s := range all[0].StepStates() {
		w := s.Key + ":" + s.State
		if s.ExitCode != nil {
			w += ":" + string(rune('0'+*s.ExitCode))
		}
		got = append(got, w)
	}
	if want := "install:done:0 check:failed:3 report:pending"; strings.Join(got, " ") != want {
		t.Errorf("steps %q, want %q", strings.Join(got, " "), want)
	}
	var told []string
	for {
		select {
		case <-sub.Ready():
			for _, ev := range sub.Drain() {
				if ev.Kind == core.EvNotice && strings.HasPrefix(ev.Text, "workflow check (r1)") {
					told = append(told, ev.Text)
				}
			}
			continue
		default:
		}
		break
	}
	want := []string{"workflow check (r1): step install (exec)", "workflow check (r1): install done (exit 0) → step check (exec)",
		"workflow check (r1): failed at step check: step \"check\": the command exited 3"}
	if strings.Join(told, "\n") != strings.Join(want, "\n") {
		t.Errorf("told:\n%s\nwant:\n%s", strings.Join(told, "\n"), strings.Join(want, "\n"))
	}
}

func TestStepStates(t *testing.T) {
	zero, one := 0, 1
	for _, c := range []struct {
		name string
		run  runs.Run
		want string
	}{
		{"running with a plan", runs.Run{Status: runs.Running, Current: "b",
			Plan:  []runs.PlannedStep{{Key: "a", Kind: "exec"}, {Key: "b", Kind: "ask"}, {Key: "c", Kind: "exec"}},
			Steps: []runs.StepResult{{Key: "a", Kind: "exec", Status: "done", ExitCode: &zero}}}, "a:done b:running c:pending"},
		{"suspended", runs.Run{Status: runs.Suspended, Current: "a", Plan: []runs.PlannedStep{{Key: "a", Kind: "ask"}}}, "a:waiting"},
		{"a record without a plan", runs.Run{Status: runs.Running, Current: "b",
			Steps: []runs.StepResult{{Key: "a", Kind: "exec", Status: "failed", ExitCode: &one, Continued: true}}}, "a:failed b:running"},
		{"a result the plan lost", runs.Run{Status: runs.Failed, Plan: []runs.PlannedStep{{Key: "a", Kind: "exec"}},
			Steps: []runs.StepResult{{Key: "old", Kind: "ask", Status: "uncertain"}}}, "a:pending old:uncertain"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, s := range c.run.StepStates() {
				got = append(got, s.Key+":"+s.State)
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), c.want)
			}
		})
	}
}
