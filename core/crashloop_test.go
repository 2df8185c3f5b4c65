package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// crashExit is the exit code of a child the crash agent ended.
const crashExit = 7

// crashAgent ends the whole process in the middle of every turn, as an
// adapter bug that crashes the engine's host would; it says it can resume
// an interrupted turn, so every recovery tries its turn again.
type crashAgent struct{}

func (crashAgent) Name() string { return "crash" }
func (crashAgent) Caps() harness.Caps {
	return harness.Caps{Boundary: harness.TurnBoundary, Resume: true}
}
func (crashAgent) Turn(ctx context.Context, req harness.TurnRequest, out harness.Emitter, h harness.Host) (harness.TurnResult, error) {
	os.Exit(crashExit)
	return harness.TurnResult{}, nil
}

// TestChildCrasher is the child of TestRecoveryCrashLoopIsHeld (run only
// as a child): it opens the workspace's engine with the crash agent,
// creating a session first when asked, and reports what it holds after a
// moment, unless a turn ended the process first.
func TestChildCrasher(t *testing.T) {
	ws := os.Getenv("ATELIER_CRASHER_WS")
	if ws == "" {
		t.Skip("helper process for TestRecoveryCrashLoopIsHeld")
	}
	e, err := Open(ws, Options{Agents: MapResolver{"crash": crashAgent{}}, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("ATELIER_CRASHER_CREATE") != "" {
		if _, err := e.Create(CreateOptions{Agent: "crash", AutoStart: true, Instructions: "go"}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	for _, rec := range e.Snapshot().Sessions {
		fmt.Printf("session %s %s\n", rec.ID, rec.Status)
		for _, rp := range e.Repairs(rec.ID) {
			fmt.Printf("repair %s\n", rp.String())
		}
	}
	if _, err := e.As("").Send(e.Snapshot().Sessions[0].ID, "more"); err != nil {
		fmt.Printf("send refused: %v\n", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRecoveryCrashLoopIsHeld: a session whose interrupted turn crashes
// the engine each time it is resumed is resumed twice; the third engine
// holds it read-only, says why and how to release it, and survives.
// Deleting the count lets the next engine try once more. A clean close in
// between counts no crash.
func TestRecoveryCrashLoopIsHeld(t *testing.T) {
	ws := t.TempDir()
	child := func(create bool) (string, int) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildCrasher$", "-test.v")
		cmd.Env = append(os.Environ(), "ATELIER_CRASHER_WS="+ws)
		if create {
			cmd.Env = append(cmd.Env, "ATELIER_CRASHER_CREATE=1")
		}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return string(out), 0
		case errors.As(err, &ee):
			return string(out), ee.ExitCode()
		}
		t.Fatalf("child: %v\n%s", err, out)
		return "", 0
	}
	if out, code := child(true); code != crashExit {
		t.Fatalf("the first turn should crash the engine (exit %d):\n%s", code, out)
	}
	for i := 1; i <= sessions.MaxRecoveries; i++ {
		if out, code := child(false); code != crashExit {
			t.Fatalf("recovery %d should resume the turn, which crashes (exit %d):\n%s", i, code, out)
		}
	}
	out, code := child(false)
	if code != 0 {
		t.Fatalf("the engine after %d crashed recoveries crashed too (exit %d):\n%s", sessions.MaxRecoveries, code, out)
	}
	for _, want := range []string{"RUNNING", "crashed the engine 2 times: held read-only", "/recovery to let the next engine try once more", "send refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("the holding engine's report lacks %q:\n%s", want, out)
		}
	}
	if out, code := child(false); code != 0 {
		t.Fatalf("a fourth engine should hold it too (exit %d):\n%s", code, out)
	}

	// The operator deletes the count: the next engine tries once more.
	st, err := sessions.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := st.IDs()
	if err != nil || len(ids) != 1 {
		t.Fatalf("sessions %v, %v", ids, err)
	}
	if err := st.SetRecoveries(ids[0], 0); err != nil {
		t.Fatal(err)
	}
	if out, code := child(false); code != crashExit {
		t.Fatalf("with the count deleted, the next engine should resume the turn (exit %d):\n%s", code, out)
	}
	if n := st.Recoveries(ids[0]); n != 1 {
		t.Fatalf("after one more crashed resume the count is %d, want 1", n)
	}
}

// blockAgent's turn runs until it is stopped; it can resume a turn.
type blockAgent struct{ started chan struct{} }

func (blockAgent) Name() string { return "block" }
func (blockAgent) Caps() harness.Caps {
	return harness.Caps{Boundary: harness.TurnBoundary, Resume: true}
}
func (b blockAgent) Turn(ctx context.Context, req harness.TurnRequest, out harness.Emitter, h harness.Host) (harness.TurnResult, error) {
	select {
	case b.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return harness.TurnResult{}, ctx.Err()
}

// TestCleanCloseCountsNoCrash: engines that resume a turn and close
// cleanly (a quit, a hand-over) before it reaches a boundary leave no
// crash counted, however many there are; the session is never held.
func TestCleanCloseCountsNoCrash(t *testing.T) {
	ws := t.TempDir()
	agent := blockAgent{started: make(chan struct{}, 1)}
	open := func() *Engine {
		e, err := Open(ws, Options{Agents: MapResolver{"block": agent}, NoHistory: true})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	rec, err := e.Create(CreateOptions{Agent: "block", AutoStart: true, Instructions: "go"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < sessions.MaxRecoveries+2; i++ {
		select {
		case <-agent.started:
		case <-time.After(10 * time.Second):
			t.Fatalf("engine %d did not run the turn", i)
		}
		if i > 0 && e.store.Recoveries(rec.ID) != 1 {
			t.Fatalf("engine %d resumed the turn: the count is %d, want 1 while it runs", i, e.store.Recoveries(rec.ID))
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if n := e.store.Recoveries(rec.ID); n != 0 {
			t.Fatalf("after clean close %d the count is %d, want 0", i, n)
		}
		e = open()
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	}()
	if got, _ := e.Session(rec.ID); got.Status != sessions.Running {
		t.Fatalf("the session is %s, want RUNNING (resumed, never held)", got.Status)
	}
}
