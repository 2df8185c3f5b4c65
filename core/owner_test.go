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

// TestChildOwner is the owning process of TestTwoProcesses (run only as a
// child): it runs a session whose first step runs a one-second command.
func TestChildOwner(t *testing.T) {
	ws := os.Getenv("ATELIER_OWNER_WS")
	if ws == "" {
		t.Skip("helper process for TestTwoProcesses")
	}
	m := &scripted.Model{Script: []scripted.Step{
		{Text: "building", Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "sleep 1"})}},
	}}
	r := openRig(t, ws, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto, Instructions: "build"}).ID
	r.streaming(id)
	if _, err := os.Stdout.WriteString("ready " + id + "\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Second)
}

// TestTwoProcesses: another process owns a running session; this one sees
// its progress through the store, pauses it through the store (the owner
// honours it), then takes the session over when the owner is killed.
func TestTwoProcesses(t *testing.T) {
	ws := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildOwner$")
	cmd.Env = append(os.Environ(), "ATELIER_OWNER_WS="+ws)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Cleanup: the child may be killed and reaped already, and Wait
		// after a kill -9 reports the signal.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()
	id := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "ready" {
			id = f[1]
			break
		}
	}
	if id == "" {
		t.Fatal("child never got ready")
	}
	m := &scripted.Model{Script: []scripted.Step{{Text: "finished by the new owner"}}}
	r := openRig(t, ws, MapResolver{"a": m})
	if lease, ok := ReadLease(r.e.store.Dir(id)); !ok || lease.PID != cmd.Process.Pid {
		t.Fatalf("lease %+v %v, want the child's", lease, ok)
	}
	rc, err := r.e.Pause(id)
	if err != nil || !strings.HasPrefix(rc.When, "sent to the owning process") {
		t.Fatalf("pause through the store: %+v %v", rc, err)
	}
	r.status(id, sessions.Paused)
	if n := len(m.Requests()); n != 0 {
		t.Fatalf("this process ran %d steps of a session it does not own", n)
	}
	// The takeover below tells whether the owner died; Wait after a kill -9
	// reports the signal.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	// The lease died with the owner: this engine takes the session over.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if lease, ok := ReadLease(r.e.store.Dir(id)); ok && lease.PID == os.Getpid() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no takeover after the owner died")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := r.e.Resume(id); err != nil {
		t.Fatal(err)
	}
	s := r.status(id, sessions.Ended)
	if s.EndReason != sessions.Completed {
		t.Fatalf("ended %s %s", s.EndReason, s.Error)
	}
	msgs, _, _ := r.e.Transcript(id)
	if ts := tools(msgs); len(ts) != 1 || ts[0].State != sessions.ToolDone || !strings.Contains(ts[0].Output, "exit code 0") {
		t.Fatalf("the owner's tool call: %+v", ts)
	}
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Text(), "new owner") {
		t.Fatalf("last message %+v", last)
	}
}

// TestShortCommandNeverTakesOver: a passive engine (a short command) on a
// session nobody runs applies a cancel itself but only records a start.
func TestShortCommandNeverTakesOver(t *testing.T) {
	ws := t.TempDir()
	p, err := Open(ws, Options{Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, p)
	a, _ := p.Create(CreateOptions{Agent: "demo", Instructions: "a"})
	b, _ := p.Create(CreateOptions{Agent: "demo", Instructions: "b"})
	rc, err := p.Start(a.ID), error(nil)
	if rc != nil {
		t.Fatal(rc)
	}
	if s, _ := p.Session(a.ID); s.Status != sessions.Created {
		t.Fatalf("a short command started a session: %s", s.Status)
	}
	if _, err = p.Cancel(b.ID); err != nil {
		t.Fatal(err)
	}
	if s, _ := p.Session(b.ID); s.Status != sessions.Ended || s.EndReason != sessions.Cancelled {
		t.Fatalf("cancel of an unowned session: %+v", s)
	}
	// The next engine that stays runs the recorded start.
	r := openRig(t, ws, MapResolver{"demo": &scripted.Model{}})
	r.status(a.ID, sessions.Ended)
}
