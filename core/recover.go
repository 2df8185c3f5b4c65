package core

import (
	"fmt"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// recoverLocked settles what a crash or a quit left of a session: open
// interactions of the dead turn are closed, replies cut before their first
// output are dropped, tool calls without a result get an interrupted one,
// and a session that was RUNNING resumes, with a recover line in its audit
// log (recover_audit.go), or waits with cannot_resume when its agent
// cannot pick a turn up. CREATED sessions get their start armed. Every
// step goes into the repair report.
func (l *live) recoverLocked() {
	e := l.e
	if l.readOnly || l.rec.Status == sessions.Ended {
		return
	}
	if l.rec.Status == sessions.Created {
		l.uncertainKeysLocked(false)
		l.armLocked()
		return
	}
	h, _, herr := l.agentLocked()
	_, model := h.(harness.Model)
	if err := l.ensureMessages(); err != nil {
		l.repairs = append(l.repairs, sessions.Repair{File: sessions.MessagesFile, Action: "unreadable: " + err.Error()})
	}
	trail := l.trailLocked()
	dropped := l.dropCutStepsLocked(false)
	resumes := l.rec.Status == sessions.Running && herr == nil && h.Caps().Resume ||
		l.rec.Status == sessions.Paused
	for _, w := range l.open {
		if herr == nil && model && l.rec.Status == sessions.Running && w.it.ToolCall != "" && toolPending(l, w.it.ToolCall) {
			// The resumed turn waits on it again: the operator's question
			// stays open across the restart, and its yield is not
			// written again.
			w.taken = make(chan struct{})
			w.yielded = trail.yielded(w.it)
			continue
		}
		l.resolveLocked(w, Answer{By: "engine", Message: "interrupted: the engine restarted"})
		l.repairs = append(l.repairs, sessions.Repair{File: sessions.InteractionsFile,
			Action: fmt.Sprintf("open %s %s closed: its turn ended with the previous engine", w.it.Kind, w.it.ID)})
	}
	if n := l.interruptDanglingLocked("the engine restarted mid-call"); n > 0 {
		l.repairs = append(l.repairs, sessions.Repair{File: sessions.MessagesFile,
			Action: fmt.Sprintf("%d tool call(s) without a result marked interrupted", n)})
	}
	l.uncertainKeysLocked(resumes)
	if l.rec.CommitPending && l.rec.Status != sessions.Running && l.rec.Status != sessions.Paused {
		// The turn ended but its commit was not written before the crash.
		e.commits.push(&commitJob{l: l, turn: l.turnCommitLocked(), done: make(chan struct{})})
		l.repairs = append(l.repairs, sessions.Repair{File: "session.json",
			Action: fmt.Sprintf("turn %d had ended without its history commit: committed now", l.rec.Turns)})
	}
	switch l.rec.Status {
	case sessions.Running:
		if !resumes {
			l.repairs = append(l.repairs, sessions.Repair{File: "session.json", Action: "was running; its agent cannot resume a turn: waiting (cannot_resume)"})
			l.setWaitLocked(sessions.WaitCannotResume)
			l.queueTurnCommitLocked()
			l.nextInputLocked()
			return
		}
		if l.endedBeforeCrashLocked(trail) {
			return
		}
		l.repairs = append(l.repairs, sessions.Repair{File: "session.json", Action: "was running: resumed"})
		l.recordRecoverLocked(trail, dropped)
		// Counted before the turn resumes: if resuming it crashes this
		// engine, the next one knows (sessions.MaxRecoveries).
		if err := e.store.SetRecoveries(l.rec.ID, l.recoveries+1); err == nil {
			l.recoveries++
			l.recovering = true
		}
		if err := l.startTurnLocked(nil); err != nil {
			l.repairs = append(l.repairs, sessions.Repair{File: "session.json", Action: "could not resume: " + err.Error()})
		}
	case sessions.Waiting:
		l.nextInputLocked()
	}
}

// toolPending reports whether the transcript has the tool call without a
// result.
func toolPending(l *live, callID string) bool {
	for i := len(l.msgs) - 1; i >= 0; i-- {
		for _, p := range l.msgs[i].Parts {
			if p.Tool != nil && p.Tool.ID == callID {
				return !p.Tool.State.Finished()
			}
		}
	}
	return false
}

// uncertainKeysLocked marks uncertain every key whose operation started and
// has no recorded result (a crash in between): its side effect may have
// happened, so it is never run again by itself. The key of the input whose
// turn resumes stays started: that turn settles it.
func (l *live) uncertainKeysLocked(resumes bool) {
	e := l.e
	for k, rec := range l.keys {
		if rec.State != sessions.KeyStarted || (resumes && k == l.rec.TurnKey) {
			// The turn of the input that carried it goes on: it settles it.
			continue
		}
		rec.State = sessions.KeyUncertain
		rec.Time = e.opts.Now()
		l.keyLocked(rec)
		if k == l.rec.TurnKey {
			l.rec.TurnKey = ""
		}
		l.repairs = append(l.repairs, sessions.Repair{File: sessions.KeysFile,
			Action: fmt.Sprintf("key %q had no recorded result: marked uncertain", k)})
	}
}

// endedBeforeCrashLocked settles a RUNNING session whose turn the audit log
// already records as ended (the record's own update was lost: a full disk,
// a crash in between): a turn recorded complete is never run again.
func (l *live) endedBeforeCrashLocked(t turnTrail) bool {
	var status string
	switch t.last {
	case "complete":
		if l.rec.Mode == sessions.Continuous {
			l.setWaitLocked(sessions.WaitAwaitingInput)
		} else {
			l.endLocked(sessions.Completed, "")
		}
		status = "completed"
	case "stop":
		l.setWaitLocked(sessions.WaitAwaitingInput)
		status = "stopped"
	case "cancel":
		l.endLocked(sessions.Cancelled, "")
		status = "cancelled"
	case "fail":
		l.endLocked(sessions.Failed, "the turn failed before the engine restarted")
		status = "failed"
	default:
		return false
	}
	l.repairs = append(l.repairs, sessions.Repair{File: "session.json",
		Action: fmt.Sprintf("was running, but turn %d had %s: not run again", l.rec.Turns, status)})
	l.uncertainKeysLocked(false)
	l.queueTurnCommitLocked()
	l.nextInputLocked()
	return true
}
