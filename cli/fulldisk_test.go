package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/internal/testreq"
	"github.com/atelier-studio/atelier/sessions"
)

// The tests of this file run the binary where the engine cannot finish
// its writes: a disk that fills mid-run, a git that never returns. Whatever
// happens, the command ends, and says why.

// exitWithin bounds the runs of this file that the old code never ended:
// far more than they need, far less than forever.
const exitWithin = 30 * time.Second

// watchedOut is a run's standard output that a test can look into while
// the run writes it.
type watchedOut struct {
	mu  sync.Mutex
	buf *bytes.Buffer
}

func (w *watchedOut) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// await waits until the output holds text.
func (w *watchedOut) await(t *testing.T, text string) {
	t.Helper()
	poll.Until(t, fmt.Sprintf("%q on standard output", text), func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return strings.Contains(w.buf.String(), text)
	})
}

// startWatched runs the binary in the background as start does, with
// exitWithin as its deadline, and its standard output watched.
func (b *sandbox) startWatched(env []string, args ...string) (*proc, *watchedOut) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), exitWithin)
	p := &proc{args: args, ctx: ctx, cancel: cancel}
	w := &watchedOut{buf: &p.out}
	p.cmd = exec.CommandContext(ctx, b.bin, args...)
	p.cmd.Dir, p.cmd.Env = b.ws, append(append([]string(nil), b.env...), env...)
	p.cmd.Stdin = strings.NewReader("")
	p.cmd.Stdout, p.cmd.Stderr = w, &p.err
	p.cmd.WaitDelay = 5 * time.Second
	if err := p.cmd.Start(); err != nil {
		cancel()
		b.t.Fatalf("atelier %s: %v", strings.Join(args, " "), err)
	}
	b.t.Cleanup(func() {
		if !p.done {
			// Killed: its error would say only that.
			cancel()
			_ = p.cmd.Wait()
		}
	})
	return p, w
}

// finish waits for a watched run; one still running at its deadline fails
// the test (it was killed).
func (p *proc) finish(t *testing.T) result {
	t.Helper()
	defer p.cancel()
	err := p.cmd.Wait()
	p.done = true
	r := result{0, p.out.String(), p.err.String()}
	var ee *exec.ExitError
	switch {
	case p.ctx.Err() != nil:
		t.Fatalf("atelier %s: still running after %s: killed\nstdout:\n%s\nstderr:\n%s",
			strings.Join(p.args, " "), exitWithin, r.out, r.err)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("atelier %s: %v", strings.Join(p.args, " "), err)
	}
	return r
}

// lastEvent is the last --json line of a type.
func lastEvent(t *testing.T, stream, typ string) (JSONEvent, bool) {
	t.Helper()
	var last JSONEvent
	found := false
	for _, line := range strings.Split(stream, "\n") {
		var ev JSONEvent
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == typ {
			last, found = ev, true
		}
	}
	return last, found
}

// TestBinaryFullDisk: the disk fills while a run streams its turn. The run
// exits 1 at once with the error (the session failed), and does not wait
// out a history commit that cannot be written. Once there is space again,
// the next run settles the session: it is no longer RUNNING, and its
// turn, recorded complete, did not run again (its answer is in the
// transcript once). (Before: the turn's record could not be saved, the
// session was held ENDED completed in memory while its file said RUNNING,
// and the run waited 15 s for the commit and exited 0.)
func TestBinaryFullDisk(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	testreq.TmpfsAt(t, b.ws, "8m")
	p, out := b.startWatched(nil, "run", "--json", longPrompt)
	out.await(t, `"type":"delta"`)
	filler := testreq.FillDisk(t, b.ws)
	r := p.finish(t).want(t, ExitFailed)
	if !strings.Contains(r.err, "no space left on device") {
		t.Errorf("the run's error does not say the disk is full:\n%s", r.err)
	}
	if strings.Contains(r.out, "history commit is late") {
		t.Errorf("the run waited out a history commit that could not be written:\n%s", r.out)
	}
	id := createdID(t, r.out)
	if ev, ok := lastEvent(t, r.out, "ended"); !ok || ev.Reason != string(sessions.Failed) {
		t.Errorf("the stream's ended event: %+v (found %v)\n%s", ev, ok, r.out)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	b.run("run", "after the disk was full").want(t, ExitOK)
	// The run started the workspace's host; a new host recovers the
	// session from what the store says when it opens the workspace.
	b.run("serve", "--restart").want(t, ExitOK)
	show := jsonOut[sessionDetail](t, b.run("sessions", "show", id, "--json").want(t, ExitOK))
	b.run("serve", "--stop").want(t, ExitOK)
	if show.Session.Status != sessions.Ended {
		t.Errorf("once there is space and a host opened the workspace, the session is %s (%s)", show.Session.Status, show.Session.SubState)
	}
	finals := 0
	for _, m := range show.Messages {
		if m.Role == sessions.Assistant && strings.Contains(m.Text(), "You said: a a a") {
			finals++
		}
	}
	if finals != 1 {
		t.Errorf("the turn's answer is in the transcript %d times, want once", finals)
	}
}

// hangingGit puts a git on the sandbox's PATH that runs the real one until
// the returned file exists, then hangs (as git can on a failing disk).
// The test's cleanup ends the hung ones.
func hangingGit(t *testing.T) (env []string, hang string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	hang = filepath.Join(dir, "hang")
	pids := hang + ".pids"
	script := fmt.Sprintf("#!/bin/sh\nif [ -e %q ]; then echo $$ >> %q; exec sleep 300; fi\nexec %q \"$@\"\n", hang, pids, real)
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		data, err := os.ReadFile(pids)
		if err != nil {
			return // none hung
		}
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
					t.Errorf("end a hung git: %v", err)
				}
			}
		}
	})
	return []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}, hang
}

// TestBinarySecondSignalExits: the first SIGTERM cancels the run's
// session; when the command then cannot finish (the turn's history commit
// hangs in git), a second SIGTERM ends it at once with 143. (Before: the
// second signal was swallowed, and the run waited 15 s for the commit and
// then up to two minutes for the engine to close.)
func TestBinarySecondSignalExits(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	env, hang := hangingGit(t)
	p, out := b.startWatched(env, "run", "--json", longPrompt)
	out.await(t, `"type":"delta"`)
	writeFile(t, hang, "")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	out.await(t, "interrupted: cancelling")
	poll.Until(t, "the history commit to hang", func() bool {
		_, err := os.Stat(hang + ".pids")
		return err == nil
	})
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := p.finish(t).want(t, ExitSignal+int(syscall.SIGTERM))
	if took := time.Since(sent); took > 10*time.Second {
		t.Errorf("the second SIGTERM took %s to end the run", took)
	}
	if !strings.Contains(r.err, "second SIGTERM") {
		t.Errorf("the run did not say why it exited:\n%s", r.err)
	}
}

// TestBinaryInterruptCancels: one SIGINT cancels the run's session, and
// the run exits 3 once it has ended.
func TestBinaryInterruptCancels(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	p, out := b.startWatched(nil, "run", "--json", longPrompt)
	out.await(t, `"type":"delta"`)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	r := p.finish(t).want(t, ExitCancelled)
	if ev, ok := lastEvent(t, r.out, "ended"); !ok || ev.Reason != string(sessions.Cancelled) {
		t.Errorf("the stream's ended event: %+v (found %v)\n%s", ev, ok, r.out)
	}
}

// TestSecondSignal: the first SIGINT or SIGTERM is left to the command;
// the second, or the first after the command's context already ended on
// one, ends the process with 128 plus its number.
func TestSecondSignal(t *testing.T) {
	// Not parallel: it signals the test process, which only its own
	// state must count.
	self := func(sig syscall.Signal) {
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name    string
		ctx     func() context.Context
		signals []syscall.Signal
		want    int
	}{
		{"two SIGTERMs", nil, []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM}, 143},
		{"SIGTERM, then SIGINT", nil, []syscall.Signal{syscall.SIGTERM, syscall.SIGINT}, 130},
		{"one signal is the command's", nil, []syscall.Signal{syscall.SIGINT}, -1},
		{"a context a signal ended, then SIGINT", func() context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errors.New("interrupt signal received"))
			return ctx
		}, []syscall.Signal{syscall.SIGINT}, 130},
		{"a context cancelled, then SIGINT", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, []syscall.Signal{syscall.SIGINT}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			exited := make(chan int, 1)
			in := &interruptState{exit: func(code int) { exited <- code }, warn: func(string) {}}
			ctx := context.Background()
			if c.ctx != nil {
				ctx = c.ctx()
			}
			disarm := in.arm(ctx)
			defer disarm()
			inner := in.arm(context.Background()) // arms nest: one count
			seen := func() int {
				in.mu.Lock()
				defer in.mu.Unlock()
				return in.seen
			}
			for _, sig := range c.signals {
				// One at a time: two of a kind sent together may arrive as one.
				before := seen()
				self(sig)
				poll.Until(t, "the signal to be counted", func() bool { return seen() > before })
			}
			inner()
			select {
			case code := <-exited:
				if code != c.want {
					t.Errorf("exit %d, want %d", code, c.want)
				}
			case <-time.After(time.Second):
				if c.want != -1 {
					t.Errorf("no exit, want %d", c.want)
				}
			}
		})
	}
}

// TestCLIDocSecondSignal: the exit codes of a second signal are documented.
func TestCLIDocSecondSignal(t *testing.T) {
	if doc := readDoc(t, "cli.md"); !strings.Contains(doc, "| 130, 143 |") {
		t.Error("docs/cli.md has no row for exit codes 130 and 143")
	}
}
