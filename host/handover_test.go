package host

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// markHandOver writes a hand-over mark as the process pid would.
func markHandOver(t *testing.T, p Paths, pid int, until time.Time) {
	t.Helper()
	b, err := json.Marshal(handOver{PID: pid, Until: until})
	if err != nil {
		t.Fatal(err)
	}
	if err := sessions.WriteFileAtomic(p.HandOver, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// restarter is another live process, standing for `serve --restart`.
func restarter(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // it only had to be alive
		_ = cmd.Wait()         // killed: the error says so
	})
	return cmd.Process.Pid
}

// TestDetachWaitsForTheSuccessor: while another live process marks a
// hand-over, Detach starts nothing (a studio that lost its host must not
// race the successor); once the successor runs and the mark goes, Detach
// reports it as the workspace's host. A mark whose writer is gone, one
// that expired and this process's own are not waited for.
func TestDetachWaitsForTheSuccessor(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	ws := t.TempDir()
	p, err := Locate(ws)
	if err != nil {
		t.Fatal(err)
	}
	markHandOver(t, p, restarter(t), time.Now().Add(time.Minute))
	type detached struct {
		st  Status
		err error
	}
	done := make(chan detached, 1)
	go func() {
		// A plain host that fails at once: had it been started, Detach
		// would say it exited.
		st, err := Detach(context.Background(), ws, []string{"false"})
		done <- detached{st, err}
	}()
	select {
	case d := <-done:
		t.Fatalf("Detach did not wait for the hand-over: %+v, %v", d.st, d.err)
	case <-time.After(300 * time.Millisecond):
	}
	h := runHost(t, Options{Workspace: ws, IdleExit: -1}) // the successor
	if err := os.Remove(p.HandOver); err != nil {
		t.Fatal(err)
	}
	var d detached
	select {
	case d = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Detach still waits after the hand-over ended")
	}
	var running *ErrRunning
	if !errors.As(d.err, &running) || running.PID != os.Getpid() || d.st.PID != h.rec.PID {
		t.Fatalf("Detach after the hand-over: %+v, %v; want the successor (pid %d)", d.st, d.err, os.Getpid())
	}
	h.cancel()
	if err := h.wait(t, 30*time.Second); err != nil {
		t.Fatal(err)
	}

	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]handOver{
		"a dead writer's":    {PID: gone.Process.Pid, Until: time.Now().Add(time.Minute)},
		"an expired one":     {PID: restarter(t), Until: time.Now().Add(-time.Second)},
		"this process's own": {PID: os.Getpid(), Until: time.Now().Add(time.Minute)},
	} {
		markHandOver(t, p, m.PID, m.Until)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := Detach(ctx, ws, []string{"false"})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "exited before it answered") {
			t.Errorf("with %s mark, Detach did not start the host: %v", name, err)
		}
	}
}

// TestHandOverEnds: BeginHandOver marks the hand-over as this process's;
// End removes it, and leaves a mark another process wrote since.
func TestHandOverEnds(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", shortDir(t))
	ws := t.TempDir()
	h, err := BeginHandOver(ws)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Locate(ws)
	if err != nil {
		t.Fatal(err)
	}
	m, err := readHandOver(p.HandOver)
	if err != nil || m.PID != os.Getpid() || time.Until(m.Until) < HandOverMax-time.Minute {
		t.Fatalf("the mark: %+v, %v", m, err)
	}
	if err := h.End(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p.HandOver); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the mark is left after End: %v", err)
	}
	h, err = BeginHandOver(ws)
	if err != nil {
		t.Fatal(err)
	}
	other := restarter(t)
	markHandOver(t, p, other, time.Now().Add(time.Minute))
	if err := h.End(); err != nil {
		t.Fatal(err)
	}
	if m, err := readHandOver(p.HandOver); err != nil || m.PID != other {
		t.Errorf("End removed another process's mark: %+v, %v", m, err)
	}
}
