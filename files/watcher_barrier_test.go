package files

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestParseBarrierName(t *testing.T) {
	cases := []struct {
		name string
		want barrierOwner
		ok   bool
	}{
		{"atelier-watch-4026531836-1234-56789-998877", barrierOwner{4026531836, 1234, 56789}, true},
		{"atelier-watch-1-2-3-a-b", barrierOwner{1, 2, 3}, true},
		{"atelier-watch-3344556677", barrierOwner{}, false}, // an older version's: no owner
		{"atelier-watch-1-0-3-x", barrierOwner{}, false},
		{"atelier-watch-1-x-3-x", barrierOwner{}, false},
		{"other-1-2-3-4", barrierOwner{}, false},
	}
	for _, c := range cases {
		got, ok := parseBarrierName(c.name)
		if got != c.want || ok != c.ok {
			t.Errorf("parseBarrierName(%q) = %+v, %v", c.name, got, ok)
		}
	}
	me := barrierOwner{ns: 7, pid: 42, start: 99}
	name := filepath.Base(mustMkdirTemp(t, t.TempDir(), me.pattern()))
	if got, ok := parseBarrierName(name); !ok || got != me {
		t.Errorf("%q reads as %+v, %v", name, got, ok)
	}
}

func TestProcessStart(t *testing.T) {
	me, err := currentOwner()
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if me.ended() {
		t.Fatalf("this process (%+v) looks ended", me)
	}
	child := exec.Command("sleep", "60")
	must(t, child.Start())
	start, err := processStart(child.Process.Pid)
	must(t, err)
	if start < me.start {
		t.Errorf("the child started at %d, before this process (%d)", start, me.start)
	}
	them := barrierOwner{ns: me.ns, pid: child.Process.Pid, start: start}
	if them.ended() {
		t.Error("a running child looks ended")
	}
	kill(t, child)
	if !them.ended() {
		t.Error("a killed child still looks running")
	}
	if _, err := processStart(child.Process.Pid); !errors.Is(err, errNoProcess) {
		t.Errorf("processStart of an ended process: %v", err)
	}
}

// TestWatcherRemovesEndedOwnersFolders starts a watcher with folders left
// in the temp directory: those of ended processes (a pid no process has,
// this process's pid with another start time, as when a pid is reused,
// and a child that was killed) go; this process's, a running one's, an
// older version's and another pid namespace's stay. The watcher's own
// folder is named for this process and goes when it closes.
func TestWatcherRemovesEndedOwnersFolders(t *testing.T) {
	me, err := currentOwner()
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	killed := exec.Command("sleep", "60")
	must(t, killed.Start())
	killedStart, err := processStart(killed.Process.Pid)
	must(t, err)
	kill(t, killed)

	running := exec.Command("sleep", "60")
	must(t, running.Start())
	t.Cleanup(func() { kill(t, running) })
	runningStart, err := processStart(running.Process.Pid)
	must(t, err)

	left := func(o barrierOwner) string {
		dir := mustMkdirTemp(t, tmp, o.pattern())
		must(t, os.WriteFile(filepath.Join(dir, "b1-1"), nil, 0o600)) // a barrier file left behind
		return dir
	}
	gone := []string{
		left(barrierOwner{ns: me.ns, pid: 1 << 30, start: 1}),
		left(barrierOwner{ns: me.ns, pid: me.pid, start: me.start + 1}),
		left(barrierOwner{ns: me.ns, pid: killed.Process.Pid, start: killedStart}),
	}
	kept := []string{
		left(me),
		left(barrierOwner{ns: me.ns, pid: running.Process.Pid, start: runningStart}),
		left(barrierOwner{ns: me.ns + 1, pid: 1 << 30, start: 1}),
		mustMkdirTemp(t, tmp, barrierPrefix),
	}

	_, c := startWatcher(t, WatcherOptions{})
	for _, d := range gone {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s should be removed: %v", filepath.Base(d), err)
		}
	}
	for _, d := range kept {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s should be kept: %v", filepath.Base(d), err)
		}
	}
	own := c.w.barrier
	if o, ok := parseBarrierName(filepath.Base(own)); !ok || o != me || filepath.Dir(own) != tmp {
		t.Fatalf("the watcher's folder %s is not named for this process (%+v)", own, me)
	}
	must(t, c.w.Close())
	if _, err := os.Stat(own); !os.IsNotExist(err) {
		t.Errorf("Close should remove the watcher's folder: %v", err)
	}
}

func mustMkdirTemp(t *testing.T, dir, pattern string) string {
	t.Helper()
	d, err := os.MkdirTemp(dir, pattern)
	must(t, err)
	return d
}

// kill ends a child process and reaps it.
func kill(t *testing.T, c *exec.Cmd) {
	t.Helper()
	must(t, c.Process.Kill())
	if err := c.Wait(); err == nil {
		t.Fatal("the killed child exited cleanly")
	}
}
