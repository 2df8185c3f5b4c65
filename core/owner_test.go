package core

import (
	"bufio"
	"errors"
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

// TestChildOwner runs the workspace's engine for TestOneEnginePerWorkspace
// (only as a child): a session whose first step runs a long command.
func TestChildOwner(t *testing.T) {
	ws := os.Getenv("ATELIER_OWNER_WS")
	if ws == "" {
		t.Skip("helper process for TestOneEnginePerWorkspace")
	}
	m := &scripted.Model{Script: []scripted.Step{
		{Text: "building", Calls: []harness.ToolCall{toolCall("c1", "exec", map[string]any{"command": "sleep 30"})}},
	}}
	r := openRig(t, ws, MapResolver{"a": m})
	id := r.create(CreateOptions{Agent: "a", AutoStart: true, Approval: PolicyAuto, Instructions: "build"}).ID
	r.streaming(id)
	if _, err := os.Stdout.WriteString("ready " + id + "\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Second)
}

// TestOneEnginePerWorkspace: another process runs the workspace's engine.
// This one cannot open a second running engine (it waits for the lease,
// then names the holder); a passive one reads the store but refuses to
// write around the engine. Once the holder is killed -9, the next engine
// takes the lease at once and recovers the session it left mid-turn.
func TestOneEnginePerWorkspace(t *testing.T) {
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
	if lease, ok := ReadLease(ws); !ok || lease.PID != cmd.Process.Pid {
		t.Fatalf("lease %+v %v, want the child's", lease, ok)
	}
	m := &scripted.Model{Script: []scripted.Step{{Text: "finished by the next engine"}}}
	begun := time.Now()
	_, err := Open(ws, Options{Agents: MapResolver{"a": m}})
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Lease.PID != cmd.Process.Pid || !errors.Is(err, ErrEngineElsewhere) {
		t.Fatalf("a second running engine opened: %v", err)
	}
	if waited := time.Since(begun); waited < leaseWait {
		t.Fatalf("refused after %s, before waiting %s for a hand-over", waited, leaseWait)
	}
	p, err := Open(ws, Options{Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := p.Session(id); err != nil || rec.Status != sessions.Running {
		t.Fatalf("the passive engine reads %+v %v, want the child's running session", rec, err)
	}
	if _, err := p.As("").Pause(id); !errors.Is(err, ErrEngineElsewhere) {
		t.Fatalf("a passive pause around the running engine: %v", err)
	}
	if _, err := p.Create(CreateOptions{Instructions: "x"}); !errors.Is(err, ErrEngineElsewhere) {
		t.Fatalf("a passive create around the running engine: %v", err)
	}
	ctls, _, _ := p.store.Log(id).Controls()
	closeEngine(t, p)
	if len(ctls) != 0 {
		t.Fatalf("refused controls reached the store: %+v", ctls)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait() // after a kill -9 it reports the signal
	begun = time.Now()
	r := openRig(t, ws, MapResolver{"a": m})
	if d := time.Since(begun); d > leaseWait/2 {
		t.Fatalf("the dead holder's lease held the next engine %s", d)
	}
	if lease, ok := ReadLease(ws); !ok || lease.PID != os.Getpid() {
		t.Fatalf("lease after the holder died: %+v %v", lease, ok)
	}
	s := r.status(id, sessions.Ended)
	if s.EndReason != sessions.Completed {
		t.Fatalf("ended %s %s", s.EndReason, s.Error)
	}
	msgs, _, _ := r.e.Transcript(id)
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Text(), "next engine") {
		t.Fatalf("last message %+v", last)
	}
	if n := len(m.Requests()); n == 0 {
		t.Fatal("the next engine never ran the session's turn")
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
	rc, err := p.As("").Start(a.ID), error(nil)
	if rc != nil {
		t.Fatal(rc)
	}
	if s, _ := p.Session(a.ID); s.Status != sessions.Created {
		t.Fatalf("a short command started a session: %s", s.Status)
	}
	if _, err = p.As("").Cancel(b.ID); err != nil {
		t.Fatal(err)
	}
	if s, _ := p.Session(b.ID); s.Status != sessions.Ended || s.EndReason != sessions.Cancelled {
		t.Fatalf("cancel of an unowned session: %+v", s)
	}
	// The next engine that stays runs the recorded start.
	r := openRig(t, ws, MapResolver{"demo": &scripted.Model{}})
	r.status(a.ID, sessions.Ended)
}

// TestPassiveWritesOnlyWithoutAnEngine: in one process too, a passive
// engine's writes wait for no running engine: while one is open they are
// refused, and the running engine's sessions stay as they were.
func TestPassiveWritesOnlyWithoutAnEngine(t *testing.T) {
	ws := t.TempDir()
	r := openRig(t, ws, MapResolver{"a": &scripted.Model{}})
	id := r.create(CreateOptions{Agent: "a", Instructions: "wait"}).ID
	p, err := Open(ws, Options{Passive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeEngine(t, p)
	if _, err := p.As("").Cancel(id); !errors.Is(err, ErrEngineElsewhere) {
		t.Fatalf("passive cancel beside a running engine: %v", err)
	}
	if err := p.Delete(id); !errors.Is(err, ErrEngineElsewhere) {
		t.Fatalf("passive delete beside a running engine: %v", err)
	}
	if err := p.Destroy(); !errors.Is(err, ErrEngineElsewhere) {
		t.Fatalf("passive destroy beside a running engine: %v", err)
	}
	if s, err := r.e.Session(id); err != nil || s.Status != sessions.Created {
		t.Fatalf("the running engine's session became %+v %v", s, err)
	}
}
