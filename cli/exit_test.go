package cli

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/sessions"
)

// TestExitCodes: every exit code of run, each produced by a real scenario.
func TestExitCodes(t *testing.T) {
	cfgDir := isolate(t)
	// A model server that is down: the turn fails at its first call.
	writeFile(t, cfgDir+"/atelier/config.toml", `
[agents.down]
harness = "openai"
model = "m"
base_url = "http://127.0.0.1:1/v1"
`)
	cases := []struct {
		name string
		run  func(ws string) result
		code int
		says string
		end  sessions.Status
	}{
		{"completed", func(ws string) result {
			return fast(t, "run", "-w", ws, "--approve", "auto", "write a note")
		}, ExitOK, "", sessions.Ended},
		{"failed", func(ws string) result {
			return fast(t, "run", "-w", ws, "--agent", "down", "hello")
		}, ExitFailed, "failed", sessions.Ended},
		{"usage", func(ws string) result {
			return fast(t, "run", "-w", ws, "--approve", "sometimes", "hello")
		}, ExitUsage, "--approve must be ask, auto or deny", ""},
		{"unknown agent", func(ws string) result {
			return fast(t, "run", "-w", ws, "--agent", "nobody", "hello")
		}, ExitUsage, "unknown agent", ""},
		{"unknown flag", func(ws string) result {
			return cli(t, "run", "-w", ws, "--colour", "hello")
		}, ExitUsage, "unknown flag", ""},
		{"cancelled by the timeout", func(ws string) result {
			// The demo at its human pace is still streaming its first step.
			return cli(t, "run", "-w", ws, "--approve", "auto", "--timeout", "300ms", "hello")
		}, ExitCancelled, "cancelled", sessions.Ended},
		{"needs the operator", func(ws string) result {
			// ask with no terminal: the first approval is left open.
			return fast(t, "run", "-w", ws, "hello")
		}, ExitNeedsYou, "needs the operator", sessions.Running},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			r := c.run(ws).want(t, c.code)
			if !strings.Contains(r.err, c.says) {
				t.Errorf("stderr does not say %q:\n%s", c.says, r.err)
			}
			if c.end == "" {
				return
			}
			recs := readSessions(ws)
			if len(recs) != 1 || recs[0].Status != c.end {
				t.Fatalf("sessions after the run: %+v", recs)
			}
		})
	}
}

// TestResumeWaitAfterExit4: a run that stopped on an approval (exit 4)
// leaves its session RUNNING with nobody running it; resume --wait picks it
// up and runs it to its end.
func TestResumeWaitAfterExit4(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	r := fast(t, "run", "-w", ws, "--json", "write a hello note").want(t, ExitNeedsYou)
	id := createdID(t, r.out)
	if rec := record(t, ws, id); rec.Status != sessions.Running {
		t.Fatalf("after exit 4 the session is %s", rec.Status)
	}
	fast(t, "sessions", "resume", id, "-w", ws, "--wait", "--approve", "auto").want(t, ExitOK)
	if rec := record(t, ws, id); rec.Status != sessions.Ended || rec.EndReason != sessions.Completed {
		t.Fatalf("after resume --wait: %s %s", rec.Status, rec.EndReason)
	}
	// A paused session's resume without --wait is only a control.
	cli(t, "sessions", "resume", id, "-w", ws).want(t, ExitUsage)
}
