package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// TestChildRun is the owning process of TestControlsReachTheOwner (run only
// as a child): `atelier run` with the demo at its human pace, its events on
// stdout; the process exits with run's exit code.
func TestChildRun(t *testing.T) {
	ws := os.Getenv("ATELIER_CLI_OWNER_WS")
	if ws == "" {
		t.Skip("helper process for TestControlsReachTheOwner")
	}
	os.Exit(Main([]string{"run", "-w", ws, "--approve", "auto", "--json", "write a hello note"}, os.Stdin, os.Stdout, os.Stderr))
}

// TestControlsReachTheOwner: another process runs a session (atelier run,
// hosting the workspace's engine itself as it cannot start a host); the
// short commands of this one pause, show, resume and cancel it through
// that host's API, and it honours each at once: the session becomes
// PAUSED, then runs again, and the cancel ends the owner's run with exit
// code 3.
func TestControlsReachTheOwner(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	cmd, id := startOwner(t, ws)

	r := cli(t, "sessions", "pause", id[:14], "-w", ws).want(t, ExitOK)
	if want := "at the next step"; !strings.Contains(r.out, want) {
		t.Fatalf("pause receipt %q, want %q: applied by the host at once", r.out, want)
	}
	poll.Until(t, "PAUSED", func() bool { return record(t, ws, id).Status == sessions.Paused })

	r = cli(t, "sessions", "show", id, "-w", ws).want(t, ExitOK)
	if !strings.Contains(r.out, "PAUSED") || !strings.Contains(r.out, "run by pid "+strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("show of a session another process runs:\n%s", r.out)
	}

	cli(t, "sessions", "resume", id, "-w", ws).want(t, ExitOK)
	poll.Until(t, "RUNNING again", func() bool { return record(t, ws, id).Status == sessions.Running })

	cli(t, "sessions", "cancel", id, "-w", ws).want(t, ExitOK)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitCancelled {
		t.Fatalf("the owner's run ended with %v, want exit code %d", err, ExitCancelled)
	}
	if rec := record(t, ws, id); rec.Status != sessions.Ended || rec.EndReason != sessions.Cancelled {
		t.Fatalf("after cancel: %s %s", rec.Status, rec.EndReason)
	}
}

// TestResumeWaitAfterTheOwnerDied: a session paused in a process that then
// died is run to its end by `sessions resume --wait`.
func TestResumeWaitAfterTheOwnerDied(t *testing.T) {
	isolate(t)
	ws := t.TempDir()
	cmd, id := startOwner(t, ws)
	cli(t, "sessions", "pause", id, "-w", ws).want(t, ExitOK)
	poll.Until(t, "PAUSED", func() bool { return record(t, ws, id).Status == sessions.Paused })
	killGroup(t, cmd)
	r := fast(t, "sessions", "resume", id, "-w", ws, "--wait", "--approve", "auto").want(t, ExitOK)
	if !strings.Contains(r.out, "That is the whole demo.") {
		t.Errorf("resume --wait printed:\n%s", r.out)
	}
	if rec := record(t, ws, id); rec.Status != sessions.Ended || rec.EndReason != sessions.Completed {
		t.Fatalf("after resume --wait: %s %s", rec.Status, rec.EndReason)
	}
}

// startOwner starts TestChildRun on ws and returns it with the id of the
// session it runs.
func startOwner(t *testing.T, ws string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildRun$")
	cmd.Env = append(os.Environ(), "ATELIER_CLI_OWNER_WS="+ws)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := ""
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for id == "" && sc.Scan() {
		var ev JSONEvent
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "session_created" {
			id = ev.SessionID
		}
	}
	if id == "" {
		t.Fatal("the owner never created its session")
	}
	go func() { // keep the pipe drained
		for sc.Scan() {
		}
	}()
	t.Cleanup(func() { killGroup(t, cmd) })
	return cmd, id
}

// killGroup ends a child process started in a process group of its own,
// with the group, unless it was already waited for.
func killGroup(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if cmd.ProcessState != nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill the group of %d: %v", cmd.Process.Pid, err)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); err != nil && !errors.As(err, &ee) {
		t.Errorf("wait for %d: %v", cmd.Process.Pid, err)
	}
}
