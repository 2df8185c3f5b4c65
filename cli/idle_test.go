package cli

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/api/client"
)

// TestIdleHostUsesNoCPU: a host whose sessions have all ended, with a
// client attached to its event stream, barely wakes: over 10 s it uses at
// most 2 clock ticks of CPU (before, it read the store ten times a second
// whatever ran: 5 ticks and more, growing with the sessions kept). A
// CREATED, WAITING or PAUSED session still has the store read ten times a
// second for controls another process's engine may write: that polling
// goes when every process is a client of the host.
func TestIdleHostUsesNoCPU(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to read a process's CPU time")
	}
	b := newServeSandbox(t)
	st := b.detach()
	b.run("run", "--approve", "auto", "write a note").want(t, ExitOK)
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
	go func() {
		for range stream.C {
			// drained: the stream only has to stay open
		}
	}()
	time.Sleep(2 * time.Second) // the commit of the run's turn, the attach
	before, ok := cpuTicks(st.PID)
	time.Sleep(10 * time.Second)
	after, ok2 := cpuTicks(st.PID)
	if !ok || !ok2 {
		t.Fatalf("cannot read the host's CPU time from /proc/%d/stat", st.PID)
	}
	t.Logf("the idle host used %d clock ticks of CPU in 10 s", after-before)
	if used := after - before; used > 2 {
		t.Errorf("the idle host used %d clock ticks of CPU in 10 s, want at most 2", used)
	}
}
