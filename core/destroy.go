package core

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// Destroy removes the workspace's state folder, its sessions and its
// history, after stopping every session this engine runs. A passive
// engine refuses while another process runs the workspace's engine. The engine is closed after, and
// unusable: the caller opens a new one if it goes on.
func (e *Engine) Destroy() error {
	e.mu.Lock()
	if !e.lease.held() {
		// A passive engine destroys only while no engine runs the
		// workspace; it keeps the lease until the folder is gone.
		if err := e.lease.take(0); err != nil {
			e.mu.Unlock()
			return fmt.Errorf("destroy: %w: stop it first (`atelier serve --stop`)", err)
		}
	}
	for _, l := range e.live {
		l.interruptLocked(intentDeleted)
	}
	e.lease.keep = true
	e.mu.Unlock()
	// The lease is let go once the folder is gone: no engine opens a
	// half-removed state.
	defer e.lease.drop()
	if err := e.Close(); err != nil {
		return fmt.Errorf("destroy: close the engine: %w", err)
	}
	state := filepath.Join(e.store.Workspace(), sessions.StateDir)
	if err := os.RemoveAll(state); err != nil {
		return fmt.Errorf("destroy: %w", err)
	}
	return nil
}

// SessionEnv returns a session's execution environment, making it (a
// container, for a Docker session) if it does not exist yet: the studio
// opens terminals in it.
func (e *Engine) SessionEnv(id string) (terminal.Env, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, err := e.getLocked(id)
	if err != nil {
		return nil, err
	}
	if l.rec.Status == sessions.Ended {
		return nil, &TransitionError{Session: l.rec.ID, Status: l.rec.Status, Action: "open a terminal", Why: "its environment was released"}
	}
	return l.envLocked()
}
