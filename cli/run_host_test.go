package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/internal/poll"
	"github.com/atelier-studio/atelier/sessions"
)

// turnStarts counts the turn starts in a session's turns.jsonl: a turn run
// by two engines at once starts twice.
func (b *sandbox) turnStarts(id string) int {
	b.t.Helper()
	f, err := os.Open(filepath.Join(b.ws, ".state", "sessions", id, sessions.TurnsFile))
	if err != nil {
		b.t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Kind == "start" {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		b.t.Fatal(err)
	}
	return n
}

// TestRunOnHost: with a host running, `atelier run` is its client: the
// host's engine creates and runs the session (its controls carry the
// host's origin, the same as a short command's), the run prints and exits
// as in-process, and the host goes on after it.
func TestRunOnHost(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	st := b.detach()
	// The host's own stream: it carries the text deltas of the sessions its
	// engine runs, and none of a session another process runs.
	c, err := client.New(st.Socket, client.Options{Label: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	stream, err := c.Events(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	r := b.run("run", "--approve", "auto", "--json", "write a note").want(t, ExitOK)
	id := createdID(t, r.out)
	deltas := 0
	for ev := range stream.C {
		if ev.SessionID != id {
			continue
		}
		if ev.Kind == client.KindDelta {
			deltas++
		}
		if ev.Kind == client.KindSession && ev.Session.Status == sessions.Ended {
			break
		}
	}
	cancel()
	if deltas == 0 {
		t.Errorf("the host's stream carried no delta of session %s: another engine ran it (stream: %v)", id, stream.Err())
	}
	if ev, ok := lastEvent(t, r.out, "ended"); !ok || ev.Reason != string(sessions.Completed) {
		t.Errorf("the run's ended event: %+v (found %v)\n%s", ev, ok, r.out)
	}
	if !strings.Contains(r.out, `"type":"delta"`) {
		t.Errorf("the run printed no delta: the stream missed the start of the turn\n%s", r.out)
	}
	if n := b.turnStarts(id); n != 1 {
		t.Errorf("the session's turn started %d times, want 1", n)
	}
	if now := b.hostStatus(); !now.Running || now.PID != st.PID {
		t.Errorf("after the run the host is %+v, want the same one (pid %d) running", now, st.PID)
	}

	// Ctrl-C cancels through the host, as in-process
	// (TestBinaryInterruptCancels): the run exits 3 once the session ended.
	p, out := b.startWatched(nil, "run", "--json", longPrompt)
	out.await(t, `"type":"delta"`)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	r = p.finish(t).want(t, ExitCancelled)
	if ev, ok := lastEvent(t, r.out, "ended"); !ok || ev.Reason != string(sessions.Cancelled) {
		t.Errorf("the interrupted run's ended event: %+v (found %v)\n%s", ev, ok, r.out)
	}
}

// TestConcurrentRunsOnHost: runs started at once on one workspace with a
// host are clients of its one engine: every session is run exactly once
// (one turn start each), and runs with one key make one session and all
// exit 0.
func TestConcurrentRunsOnHost(t *testing.T) {
	t.Parallel()
	b := newServeSandbox(t)
	b.detach()
	const n = 6
	procs := make([]*proc, 2*n)
	for i := range procs {
		args := []string{"run", "--approve", "auto", "--json", "write a note"}
		if i >= n {
			args = append(args, "--key", "same")
		}
		procs[i] = b.start(args...)
	}
	results := waitAll(t, procs)
	ids := map[string]bool{}
	keyed := map[string]bool{}
	for i, r := range results {
		r.want(t, ExitOK)
		id := createdID(t, r.out)
		if i >= n {
			keyed[id] = true
			continue
		}
		if ids[id] {
			t.Errorf("two runs printed session %s", id)
		}
		ids[id] = true
	}
	if len(keyed) != 1 {
		t.Errorf("%d runs with one key made sessions %v, want one", n, keyed)
	}
	for id := range keyed {
		ids[id] = true
	}
	for id := range ids {
		if got := b.turnStarts(id); got != 1 {
			t.Errorf("session %s: %d turn starts, want 1", id, got)
		}
		if rec := b.record(id); rec.Status != string(sessions.Ended) || rec.EndReason != string(sessions.Completed) {
			t.Errorf("session %s is %s (%s), want ENDED completed", id, rec.Status, rec.EndReason)
		}
	}
}

// TestConcurrentRunsStartOneHost: runs started at once on one workspace
// with no host all try to start one; one host wins and every run is its
// client: every session is run exactly once (one turn start each) and
// completes. (In-process engines used to race here: a new session was
// visible before its creator claimed it, and 2 of 20 sessions had 3 turn
// starts.)
func TestConcurrentRunsStartOneHost(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	const n = 20 // the twenty
	procs := make([]*proc, n)
	for i := range procs {
		procs[i] = b.start("run", "--approve", "auto", "--json", "write a note")
	}
	results := waitAll(t, procs)
	for _, r := range results {
		r.want(t, ExitOK)
		id := createdID(t, r.out)
		if got := b.turnStarts(id); got != 1 {
			t.Errorf("session %s: %d turn starts, want 1", id, got)
		}
		if ev, ok := lastEvent(t, r.out, "ended"); !ok || ev.Reason != string(sessions.Completed) {
			t.Errorf("session %s: the run's ended event %+v (found %v)", id, ev, ok)
		}
	}
	log, err := os.ReadFile(filepath.Join(b.ws, sessions.StateDir, "engine.log"))
	if err != nil {
		t.Fatal(err)
	}
	if hosts := strings.Count(string(log), "hosting the engine of"); hosts != 1 || b.hostPID() == 0 {
		t.Errorf("%d hosts served the workspace (one runs now: %v), want exactly one:\n%s", hosts, b.hostPID() != 0, log)
	}
}

// TestScheduleFiresWithoutAStudio: `sessions create --start-at` with no
// engine running starts a detached host, so the session starts on time and
// runs once, with no studio open; a run meanwhile is a client of that
// host too, and each session runs exactly once. (Before: the session
// waited CREATED until a studio or a host opened the workspace, or an
// unrelated run adopted it and left it RUNNING.)
func TestScheduleFiresWithoutAStudio(t *testing.T) {
	t.Parallel()
	b := newSandbox(t)
	r := b.run("sessions", "create", "--start-at", "300ms", "a scheduled task").want(t, ExitOK)
	scheduled := strings.TrimSpace(r.out)
	if b.hostPID() == 0 {
		t.Fatal("sessions create started no host")
	}
	r = b.run("run", "--approve", "auto", "--json", longPrompt).want(t, ExitOK)
	own := createdID(t, r.out)
	poll.Until(t, "the scheduled session to end", func() bool { return b.record(scheduled).Status == string(sessions.Ended) })
	for _, id := range []string{own, scheduled} {
		if rec := b.record(id); rec.Status != string(sessions.Ended) || rec.EndReason != string(sessions.Completed) {
			t.Errorf("session %s is %s (%s), want ENDED (completed)", id, rec.Status, rec.EndReason)
		}
		if got := b.turnStarts(id); got != 1 {
			t.Errorf("session %s: %d turn starts, want 1", id, got)
		}
	}
}

// waitAll waits for runs started together and returns their results, in
// order.
func waitAll(t *testing.T, procs []*proc) []result {
	t.Helper()
	results := make([]result, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = p.wait(t)
		}()
	}
	wg.Wait()
	return results
}
