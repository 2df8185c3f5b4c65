package core

import (
	"fmt"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// recoverLocked settles what a crash or a quit left of a session: open
// interactions of the dead turn are closed, tool calls without a result get
// an interrupted one, and a session that was RUNNING resumes (or waits with
// cannot_resume when its agent cannot pick a turn up). CREATED sessions get
// their start armed. Every step goes into the repair report.
func (e *Engine) recoverLocked(l *live) {
	if l.readOnly || l.rec.Status == sessions.Ended {
		return
	}
	if l.rec.Status == sessions.Created {
		e.armLocked(l)
		return
	}
	h, _, herr := e.opts.Agents.Resolve(l.rec.Agent)
	_, model := h.(harness.Model)
	l.ensureMessages()
	for _, w := range l.open {
		if herr == nil && model && l.rec.Status == sessions.Running && w.it.ToolCall != "" && toolPending(l, w.it.ToolCall) {
			// The resumed turn waits on it again: the operator's question
			// stays open across the restart.
			w.taken = make(chan struct{})
			continue
		}
		e.resolveLocked(l, w, Answer{By: "engine", Message: "interrupted: the engine restarted"})
		l.repairs = append(l.repairs, sessions.Repair{File: sessions.InteractionsFile,
			Action: fmt.Sprintf("open %s %s closed: its turn ended with the previous engine", w.it.Kind, w.it.ID)})
	}
	if n := e.interruptDanglingLocked(l, "the engine restarted mid-call"); n > 0 {
		l.repairs = append(l.repairs, sessions.Repair{File: sessions.MessagesFile,
			Action: fmt.Sprintf("%d tool call(s) without a result marked interrupted", n)})
	}
	for k, rec := range l.keys {
		if rec.State == "started" {
			rec.State = "uncertain"
			rec.Time = e.opts.Now()
			l.keys[k] = rec
			l.log.AppendKey(rec)
			l.repairs = append(l.repairs, sessions.Repair{File: sessions.KeysFile,
				Action: fmt.Sprintf("key %q had no recorded result: marked uncertain", k)})
		}
	}
	switch l.rec.Status {
	case sessions.Running:
		if herr != nil || !h.Caps().Resume {
			e.waitLocked(l, sessions.WaitCannotResume)
			l.repairs = append(l.repairs, sessions.Repair{File: "session.json", Action: "was running; its agent cannot resume a turn: waiting (cannot_resume)"})
			return
		}
		l.repairs = append(l.repairs, sessions.Repair{File: "session.json", Action: "was running: resumed"})
		e.startTurnLocked(l, "", false)
	case sessions.Waiting:
		e.nextInputLocked(l)
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
