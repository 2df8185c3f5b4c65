package core

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// RunLogFile is the engine's run log under the state folder: one line per
// notable event (status changes, interactions, notices, commits), for the
// studio's settings view and for troubleshooting.
const RunLogFile = "engine.log"

// maxRunLog is the size past which the run log is rotated at open (the
// previous one is kept as engine.log.1).
const maxRunLog = 5 << 20

// RunLogPath returns the path of the engine's run log.
func (e *Engine) RunLogPath() string {
	return filepath.Join(e.store.Workspace(), sessions.StateDir, RunLogFile)
}

// runLog writes the live view's notable events to the run log until the
// engine closes. It reads a subscription of its own, so logging never
// slows the engine.
func (e *Engine) runLog(sub *Subscription) {
	defer e.wg.Done()
	path := e.RunLogPath()
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxRunLog {
		if err := os.Rename(path, path+".1"); err != nil {
			e.noticeSession("", "rotating the run log: "+err.Error())
		}
	}
	if e.store.ReadOnly() {
		return // a read-only state is not written, not even its run log
	}
	// Never through a symlink planted in .state/.
	f, err := sessions.OpenStateFile(filepath.Dir(path), RunLogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		e.noticeSession("", "the run log cannot be written: "+err.Error())
		return
	}
	// The run log is for troubleshooting: a failed write is said once, and
	// the engine goes on.
	failed := false
	write := func(line string) {
		line = e.opts.Redactor.Redact(line)
		if _, err := fmt.Fprintf(f, "%s %s\n", time.Now().Format(time.RFC3339), line); err != nil && !failed {
			failed = true
			e.noticeSession("", "the run log cannot be written: "+err.Error())
		}
	}
	write(fmt.Sprintf("engine started (pid %d)", os.Getpid()))
	status := map[string]string{}
	for range sub.Ready() {
		for _, ev := range sub.Drain() {
			if line := logLine(ev, status); line != "" {
				write(line)
			}
		}
	}
	if err := f.Close(); err != nil && !failed {
		e.noticeSession("", "the run log cannot be written: "+err.Error())
	}
}

func logLine(ev Event, status map[string]string) string {
	switch ev.Kind {
	case EvSession:
		s := ev.Session
		st := string(s.Status) + " " + string(s.SubState) + string(s.WaitReason) + string(s.EndReason)
		if status[s.ID] == st {
			return ""
		}
		status[s.ID] = st
		line := fmt.Sprintf("session %s %s", s.ID, st)
		if s.Error != "" {
			line += ": " + s.Error
		}
		return line
	case EvInteraction:
		it := ev.Interaction
		if it.Resolved {
			return fmt.Sprintf("session %s %s %s resolved by %s %s%s", ev.SessionID, it.Kind, it.ID, it.By, it.Decision, it.Answer)
		}
		return fmt.Sprintf("session %s %s %s opened: %s%s%s", ev.SessionID, it.Kind, it.ID, it.Text, it.Command, it.Path)
	case EvNotice:
		return fmt.Sprintf("notice %s %s", ev.SessionID, ev.Text)
	case EvCommit:
		return fmt.Sprintf("session %s turn %d committed %s", ev.SessionID, ev.Turn, ev.Text)
	case EvRemoved:
		return fmt.Sprintf("session %s deleted", ev.SessionID)
	case EvSignal:
		if sig := ev.Signal; sig != nil {
			return fmt.Sprintf("event %s fired (%s), woke %d", sig.Name, sig.ID, sig.Woken)
		}
	case EvResync:
		return "run log fell behind: some events are missing"
	}
	return ""
}
