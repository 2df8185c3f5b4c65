package core

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestChildEngine is not a test of its own: TestKill9AfterControls runs the
// test binary again with ATELIER_CHILD_WS set, and this function is then the
// child engine. It starts a session whose exec runs for a long time, sends
// a pause and a steer, says "ready" once both are acknowledged, and waits
// to be killed.
func TestChildEngine(t *testing.T) {
	ws := os.Getenv("ATELIER_CHILD_WS")
	if ws == "" {
		t.Skip("helper process for TestKill9AfterControls")
	}
	m := &scripted.Model{Script: []scripted.Step{
		{Text: "running the build", Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "sleep 5"})}},
	}}
	r := openRig(t, ws, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto, Instructions: "build it"}).ID
	r.until("exec running", func(ev Event) bool {
		if ev.Kind != EvMessage {
			return false
		}
		for _, p := range ev.Message.Parts {
			if p.Tool != nil && p.Tool.State == sessions.ToolRunning {
				return true
			}
		}
		return false
	})
	if _, err := r.e.As("").Pause(id); err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.As("").Steer(id, "use the fast path"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stdout.WriteString("ready " + id + "\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Minute)
}

func TestKill9AfterControls(t *testing.T) {
	ws := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildEngine$", "-test.v")
	cmd.Env = append(os.Environ(), "ATELIER_CHILD_WS="+ws)
	out, _ := cmd.StdoutPipe()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "ready" {
			id = f[1]
			break
		}
	}
	// The child sleeps until killed (or failed before getting ready, which
	// the check below reports); Wait after a kill -9 reports the signal.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	if id == "" {
		t.Fatal("child never got ready")
	}

	m := &scripted.Model{Script: []scripted.Step{{Text: "resumed"}}}
	r := openRig(t, ws, MapResolver{"a": m})
	// The pause written before the kill is honoured at the resumed turn's
	// first boundary; the steer waits in the queue.
	r.status(id, sessions.Paused)
	q, _ := r.e.Queue(id)
	if len(q) != 1 || q[0].Text != "use the fast path" {
		t.Fatalf("queue after restart: %+v", q)
	}
	msgs, _, _ := r.e.Transcript(id)
	ts := tools(msgs)
	if len(ts) != 1 || ts[0].State != sessions.ToolInterrupted {
		t.Fatalf("tool call after kill -9: %+v", ts)
	}
	rep := r.e.Repairs(id)
	if len(rep) == 0 {
		t.Fatal("no repair report")
	}
	if _, err := r.e.As("").Resume(id); err != nil {
		t.Fatal(err)
	}
	r.status(id, sessions.Ended)
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d steps after resume", len(reqs))
	}
	h := reqs[0].History
	if last := h[len(h)-1]; last.Text() != "use the fast path" {
		t.Fatalf("steer not delivered: history ends %+v", last)
	}
	// Nothing acknowledged was lost or duplicated: one task message, one
	// steer message.
	count := map[string]int{}
	for _, m := range h {
		if m.Role == sessions.User {
			count[m.Text()]++
		}
	}
	if count["build it"] != 1 || count["use the fast path"] != 1 {
		t.Fatalf("user messages %v", count)
	}
}
