package core

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// startupChecks runs, in the background, what opening a workspace should
// look at without delaying the first frame: whether the workspace differs
// from its last turn commit, and which containers of dead sessions remain.
func (e *Engine) startupChecks() {
	defer e.wg.Done()
	if h := e.hist.workspace(); h != nil {
		ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
		div, err := h.Divergence(ctx)
		cancel()
		if err == nil && len(div) > 0 {
			e.mu.Lock()
			e.divergence = div
			e.bus.publish(Event{Kind: EvNotice, Text: divergenceText(div)})
			e.mu.Unlock()
		}
	}
	if e.opts.CleanupContainers {
		e.cleanupContainers()
	}
}

func divergenceText(div []string) string {
	shown := div
	if len(shown) > 5 {
		shown = shown[:5]
	}
	more := ""
	if len(div) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(div)-len(shown))
	}
	return fmt.Sprintf("the workspace differs from its last turn commit: %s%s (changed outside any session)", strings.Join(shown, ", "), more)
}

// Divergence returns the files that differed from the last turn commit
// when the workspace was opened (changes made outside any session).
func (e *Engine) Divergence() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.divergence...)
}

// cleanupContainers removes the containers of this workspace's sessions
// that ended or are gone (their process died before it removed them),
// sparing live sessions', through the container backend the engine was
// handed (which removes nothing when its engine does not answer quickly).
func (e *Engine) cleanupContainers() {
	if e.opts.Containers == nil {
		return
	}
	// This engine runs every session of the workspace: a container is
	// live while its session is (it waits, or will be resumed here).
	alive := func(id string) bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		l, ok := e.live[id]
		return ok && l.rec.Status != sessions.Ended
	}
	removed, _ := e.opts.Containers.Cleanup(e.ctx, e.store.Workspace(), alive)
	if len(removed) > 0 {
		e.mu.Lock()
		e.bus.publish(Event{Kind: EvNotice, Text: fmt.Sprintf("removed %d container(s) left by sessions whose process died", len(removed))})
		e.mu.Unlock()
	}
}

// checkWorkspaceLocked ends every live session workspace_lost when the
// workspace (or its state folder) vanished under the engine.
func (e *Engine) checkWorkspaceLocked() {
	if _, err := os.Stat(e.store.Dir("")); err == nil {
		return
	}
	for _, l := range e.live {
		if l.rec.Status == sessions.Ended || !l.owned {
			continue
		}
		if l.interruptLocked(intentLost) {
			continue
		}
		l.setStatusLocked(sessions.Ended)
		l.rec.EndReason = sessions.WorkspaceLost
		rec := l.rec
		e.bus.publish(Event{Kind: EvSession, SessionID: rec.ID, Session: &rec})
	}
}
