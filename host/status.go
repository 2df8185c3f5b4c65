package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// Status says whether a process hosts a workspace's engine.
type Status struct {
	Running bool `json:"running"`
	// PID, Version and StartedAt describe the running host (zero when
	// none runs, or when it has not written its record yet).
	PID       int        `json:"pid,omitempty"`
	Socket    string     `json:"socket,omitempty"`
	Version   string     `json:"version,omitempty"`
	StartedAt *time.Time `json:"started_at,omitempty"`
	Workspace string     `json:"workspace"`
	// KeptAlive says why the running host does not exit when idle (the
	// triggers that need it); empty when it may.
	KeptAlive []string `json:"kept_alive,omitempty"`
	// Listen and IdleExit are the running host's (see Record).
	Listen   string `json:"listen,omitempty"`
	IdleExit string `json:"idle_exit,omitempty"`
}

// ErrNotRunning is returned by Stop when no process hosts the workspace.
var ErrNotRunning = errors.New("no process hosts the workspace's engine")

// Probe reports whether a process hosts the workspace's engine: whether
// its lock is held (a probe, not a guess from a pid) and what its record
// says. It works on a read-only workspace: all it reads is in the runtime
// directory. A workspace without a .state/ has no host, and Probe does not
// create one.
func Probe(workspace string) (Status, error) {
	p, ok, err := locateExisting(workspace)
	if err != nil || !ok {
		return Status{Workspace: p.Workspace}, err
	}
	return statusAt(p)
}

// locateExisting finds a workspace's host paths without changing the
// workspace: ok is false (and only Workspace set) when it has no .state/.
func locateExisting(workspace string) (Paths, bool, error) {
	ws, err := realWorkspace(workspace)
	if err != nil {
		return Paths{}, false, err
	}
	if _, err := os.Lstat(filepath.Join(ws, sessions.StateDir)); errors.Is(err, os.ErrNotExist) {
		return Paths{Workspace: ws}, false, nil
	}
	dir, err := RuntimeDir(os.Getenv)
	if err != nil {
		return Paths{Workspace: ws}, false, err
	}
	p, err := pathsIn(dir, ws, stateID(ws))
	if err != nil {
		return Paths{Workspace: ws}, false, err
	}
	return p, true, nil
}

func statusAt(p Paths) (Status, error) {
	s := Status{Socket: p.Socket, Workspace: p.Workspace}
	held, err := lockHeld(p.Lock)
	if err != nil || !held {
		return s, err
	}
	s.Running = true
	r, err := readRecord(p.Record)
	if err != nil {
		// Held, and the record not written yet (a host starting) or
		// unreadable: it runs, that is all we know.
		return s, nil
	}
	if r.Workspace != "" && r.Workspace != p.Workspace {
		return s, fmt.Errorf("the host of %s (pid %d) says it hosts %s", p.Workspace, r.PID, r.Workspace)
	}
	started := r.StartedAt
	s.PID, s.Version, s.StartedAt, s.KeptAlive = r.PID, r.Version, &started, r.KeptAlive
	s.Listen, s.IdleExit = r.Listen, r.IdleExit
	return s, nil
}

// DefaultStopTimeout bounds how long Stop waits for a host to let go of
// its lock.
const DefaultStopTimeout = 30 * time.Second

// Stop asks the process that hosts the workspace's engine to stop
// (SIGTERM: it closes the engine, its sessions stay resumable) and waits
// until its lock is free, or ctx ends. It returns the status of the host
// it stopped, or ErrNotRunning.
func Stop(ctx context.Context, workspace string) (Status, error) {
	p, ok, err := locateExisting(workspace)
	if err != nil {
		return Status{Workspace: p.Workspace}, err
	}
	if !ok {
		return Status{Workspace: p.Workspace}, ErrNotRunning
	}
	s, err := statusAt(p)
	if err != nil {
		return s, err
	}
	if !s.Running {
		return s, ErrNotRunning
	}
	if s.PID <= 0 {
		return s, fmt.Errorf("stop the host of %s: it has not said its pid yet; try again", p.Workspace)
	}
	if err := syscall.Kill(s.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return s, fmt.Errorf("stop the host of %s (pid %d): %w", p.Workspace, s.PID, err)
	}
	if err := waitLockFree(ctx, p.Lock); err != nil {
		return s, fmt.Errorf("stop the host of %s (pid %d): %w", p.Workspace, s.PID, err)
	}
	// The lock goes a moment before the process: it still holds its log
	// (.state/engine.log) open until it exits, which keeps the
	// workspace's file system busy (an unmount, a read-only remount).
	if err := waitExited(ctx, s.PID); err != nil {
		return s, fmt.Errorf("stop the host of %s (pid %d): %w", p.Workspace, s.PID, err)
	}
	return s, nil
}

// waitExited waits until process pid has exited: gone, or a zombie (which
// holds no file any more) its parent has yet to reap.
func waitExited(ctx context.Context, pid int) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return nil // no such process
		}
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && strings.HasPrefix(strings.TrimSpace(string(b[i+1:])), "Z") {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("still exiting: %w", context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// waitLockFree waits until no process holds the lock. A client waiting on
// another process has nothing to be woken by: it checks every 50 ms.
func waitLockFree(ctx context.Context, lock string) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		held, err := lockHeld(lock)
		if err != nil || !held {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("still running: %w", context.Cause(ctx))
		case <-tick.C:
		}
	}
}
