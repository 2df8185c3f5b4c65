package core

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
)

// commitTimeout bounds a turn's commit.
const commitTimeout = 2 * time.Minute

// noteWrite records a path the turn wrote through the engine (a tool, an
// agent's file request), for the turn's commit.
func (e *Engine) noteWrite(l *live, p string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if l.wrote == nil {
		l.wrote = map[string]bool{}
	}
	l.wrote[p] = true
}

// turnCommitLocked describes the history commit that ends a turn: the paths
// the turn's tools wrote, or a full scan when it ran commands (they may have
// changed anything), and the session's logs. It reports false when there is
// nothing to commit: no history, or the turn ended because the engine
// closed or the session was deleted.
func (e *Engine) turnCommitLocked(ctx context.Context, l *live) (history.TurnCommit, bool) {
	if e.opts.NoHistory {
		return history.TurnCommit{}, false
	}
	if cause := context.Cause(ctx); ctx.Err() != nil && (errors.Is(cause, errDeleted) || e.closed) {
		return history.TurnCommit{}, false
	}
	tc := history.TurnCommit{SessionID: l.rec.ID, Turn: l.rec.Turns, Summary: e.summaryLocked(l)}
	if !l.ranExec {
		tc.Changed = []string{}
		for p := range l.wrote {
			tc.Changed = append(tc.Changed, p)
		}
		sort.Strings(tc.Changed)
	}
	l.wrote, l.ranExec = nil, false
	for _, f := range []string{sessions.MessagesFile, sessions.TurnsFile, sessions.ControlsFile, sessions.InteractionsFile} {
		tc.Logs = append(tc.Logs, l.log.Path(f))
	}
	return tc, true
}

// summaryLocked is the one line a turn's commit carries: the start of the
// agent's last text, else the session's status.
func (e *Engine) summaryLocked(l *live) string {
	for i := len(l.msgs) - 1; i >= 0; i-- {
		m := l.msgs[i]
		if m.Role == sessions.Assistant {
			if t := strings.TrimSpace(m.Text()); t != "" {
				return firstLine(t, 72)
			}
		}
	}
	return fmt.Sprintf("turn %d: %s %s%s", l.rec.Turns, l.rec.Status, l.rec.WaitReason, l.rec.EndReason)
}

func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// commitTurn writes a turn's history commit and tells subscribers. A failed
// commit never fails the session: the turn's work is in the workspace and
// its logs; the failure is shown.
func (e *Engine) commitTurn(l *live, tc history.TurnCommit) {
	h := e.history()
	if h == nil {
		return
	}
	// Not e.ctx: a turn that ended just before the engine closes still
	// gets its commit (Close waits for it), bounded in time.
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	c, err := h.CommitTurn(ctx, tc)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		e.bus.publish(Event{Kind: EvNotice, SessionID: tc.SessionID, Text: "history commit failed: " + err.Error()})
		return
	}
	e.bus.publish(Event{Kind: EvCommit, SessionID: tc.SessionID, Text: c.Hash, Turn: tc.Turn})
}
