package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/sessions"
)

// cpuTime is the CPU time a process's threads have used, exactly: the sum
// of /proc/PID/task/*/schedstat (nanoseconds on the CPU), where
// /proc/PID/stat's clock ticks are sampled at each timer interrupt and
// can charge a whole tick for a few microseconds of work.
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(stats) == 0 {
		t.Fatalf("no schedstat for process %d (%v): the kernel must have CONFIG_SCHED_INFO", pid, err)
	}
	var total time.Duration
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that ended since the listing
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			t.Fatalf("%s: %q", p, b)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			t.Fatalf("%s: %q", p, b)
		}
		total += time.Duration(ns)
	}
	return total
}

// idleBudget is what the issue allows an idle host over 10 s: 2 clock
// ticks of 10 ms (USER_HZ is 100 on Linux), measured here exactly.
const idleBudget = 2 * 10 * time.Millisecond

// TestIdleHostUsesNoCPU: a host whose sessions have all ended, with a
// client attached to its event stream, barely wakes: over 10 s it uses at
// most two clock ticks' worth of CPU, 20 ms (before, it read the store ten
// times a second whatever ran: 5 ticks and more, growing with the
// sessions kept; now about 10 ms, most of it the Go runtime's own). A
// CREATED, WAITING or PAUSED session still has the store read ten times a
// second for controls another process's engine may write: that polling
// goes when every process is a client of the host.
//
// The measurement starts once the run's turn is committed (the host's
// last work for it): a fixed pause lost that race on a loaded machine.
func TestIdleHostUsesNoCPU(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		t.Skip("needs /proc/PID/schedstat to read a process's CPU time")
	}
	b := newServeSandbox(t)
	st := b.detach()
	c, err := client.New(st.Socket, client.Options{Label: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := c.Events(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	r := b.run("run", "--approve", "auto", "--json", "write a note").want(t, ExitOK)
	id := createdID(t, r.out)
	settled := time.After(30 * time.Second)
	for done := false; !done; {
		select {
		case ev, ok := <-stream.C:
			if !ok {
				t.Fatalf("the host's stream ended: %v", stream.Err())
			}
			done = ev.SessionID == id && (ev.Kind == core.EvCommit ||
				(ev.Kind == client.KindSession && ev.Session.Status == sessions.Ended && !ev.Session.CommitPending))
		case <-settled:
			t.Fatal("the run's turn was not committed within 30 s")
		}
	}
	go func() {
		for range stream.C {
			// drained: the stream only has to stay open
		}
	}()
	time.Sleep(time.Second)
	before := cpuTime(t, st.PID)
	time.Sleep(10 * time.Second)
	used := cpuTime(t, st.PID) - before
	t.Logf("the idle host used %s of CPU in 10 s", used)
	if used > idleBudget {
		t.Errorf("the idle host used %s of CPU in 10 s, want at most %s", used, idleBudget)
	}
}
