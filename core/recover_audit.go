package core

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/atelier-studio/atelier/sessions"
)

// A turn that an engine left in flight (it died, or quit) is taken up by
// the next one, and the audit log says so once: one recover line naming
// the engine that ran it before and where the turn resumes, in place of a
// second start; the yields of the interactions it waits on again are not
// written again; and a step the crash cut before its first output is
// dropped from the transcript instead of staying as an empty reply.

// turnTrail is what the audit log says of the open turn.
type turnTrail struct {
	// last is the kind (and reason) of the turn's last line, exec lines
	// aside: "complete" says the turn ended, a "yield" without a reason
	// that the engine quit and handed the turn over.
	last, lastReason string
	started          bool             // its start line is there
	ran              *sessions.Runner // who wrote its last start or recover line
	yields           []sessions.TurnEvent
}

// readTrail reads the audit lines of one turn.
func readTrail(evs []sessions.TurnEvent, turn int) turnTrail {
	var t turnTrail
	for _, ev := range evs {
		if ev.Turn != turn || ev.Kind == "exec" {
			continue
		}
		t.last, t.lastReason = ev.Kind, ev.Reason
		switch ev.Kind {
		case "start":
			t.started = true
			t.ran = ev.Host
		case "recover":
			t.ran = ev.Host
		case "yield":
			t.yields = append(t.yields, ev)
		}
	}
	return t
}

// yielded reports whether the trail holds the yield of a turn parked on
// it: park writes it with the interaction's kind and time.
func (t turnTrail) yielded(it sessions.Interaction) bool {
	for _, y := range t.yields {
		if y.Reason == string(it.Kind) && y.Time.Equal(it.Time) {
			return true
		}
	}
	return false
}

// trailLocked reads the open turn's audit lines; a log that cannot be
// read is an empty trail, and the repair report says why.
func (l *live) trailLocked() turnTrail {
	evs, _, err := l.log.Turns()
	if err != nil {
		l.repairs = append(l.repairs, sessions.Repair{File: sessions.TurnsFile, Action: "unreadable: " + err.Error()})
		return turnTrail{}
	}
	return readTrail(evs, l.rec.Turns)
}

// runner names this engine's process in the audit log.
func (e *Engine) runner() *sessions.Runner {
	return &sessions.Runner{PID: os.Getpid(), Engine: e.owner}
}

// previousRunner is the engine that ran the turn before this one: the one
// its audit lines name, else the last holder of the workspace's lease (a
// turn that died before its start line, waiting for a worker).
func (l *live) previousRunner(t turnTrail) *sessions.Runner {
	if t.ran != nil {
		return t.ran
	}
	if prev := l.e.lease.prev; prev.PID != 0 {
		return &sessions.Runner{PID: prev.PID, Engine: prev.Owner}
	}
	return nil
}

// recordRecoverLocked writes the recover line of a turn this engine
// resumes, and has the resumed turn write no second start. Called once the
// transcript and the interactions are settled, so the resume point is the
// one the turn will take.
func (l *live) recordRecoverLocked(t turnTrail, dropped []string) {
	e := l.e
	cause := "crash"
	if t.last == "yield" && t.lastReason == "" {
		cause = "quit"
	}
	rec := sessions.Recovery{From: l.previousRunner(t), Dropped: dropped}
	rec.Step, rec.Call, rec.Interaction = l.resumePointLocked()
	data, err := json.Marshal(rec)
	if err != nil {
		l.storeFailedLocked(fmt.Errorf("encode the recover line: %w", err))
		return
	}
	l.appendTurnLocked(sessions.TurnEvent{Time: e.opts.Now(), Turn: l.rec.Turns, Kind: "recover",
		Reason: cause, Host: e.runner(), Data: data})
	l.startLogged = t.started
	// The transcript says so where it happened: the agent's next words
	// answer no prompt the operator wrote (an agent CLI is asked to
	// continue where it left off).
	why := "the engine that ran it stopped mid-turn"
	if cause == "quit" {
		why = "it was handed over when the studio running it quit"
	}
	l.messageLocked(sessions.Notice, []sessions.Part{{Type: sessions.TextPart,
		Text: "↻ resumed: " + why + "; the agent goes on where it left off, asked to continue, with no new prompt"}})
}

// resumePointLocked says where the open turn resumes: the step whose tool
// call waits on an open interaction (that call, and the interaction), or
// else the next step, counted by the turn's assistant messages.
func (l *live) resumePointLocked() (step int, call, interaction string) {
	var last *sessions.Message
	for i := range l.msgs {
		if m := &l.msgs[i]; m.Turn == l.rec.Turns && m.Role == sessions.Assistant {
			step++
			last = m
		}
	}
	if last == nil {
		return step, "", ""
	}
	for _, p := range last.Parts {
		if p.Tool == nil || p.Tool.State.Finished() {
			continue
		}
		for _, w := range l.open {
			if w.it.ToolCall == p.Tool.ID {
				return step - 1, p.Tool.ID, w.it.ID
			}
		}
	}
	return step, "", ""
}

// dropCutStepsLocked takes out of the transcript every reply a crash cut
// before its first output (opened, never completed, nothing in it): each
// gets a dropped revision, durable before the message leaves memory. What
// could not be written stays, and the session fails with the error.
// Quitting, the open turn's empty reply goes too although its step marked
// it complete when the quit ended it: the resumed step opens its own.
func (l *live) dropCutStepsLocked(quitting bool) []string {
	if err := l.ensureMessages(); err != nil {
		return nil
	}
	var dropped []string
	kept := make([]sessions.Message, 0, len(l.msgs))
	for _, m := range l.msgs {
		cut := cutStep(m) || quitting && m.Turn == l.rec.Turns && m.Role == sessions.Assistant && emptyReply(m)
		if !cut {
			kept = append(kept, m)
			continue
		}
		d := m.Clone()
		d.Rev++
		d.Dropped = true
		if err := l.log.AppendMessage(d); err != nil {
			l.storeFailedLocked(err)
			kept = append(kept, m)
			continue
		}
		dropped = append(dropped, m.ID)
	}
	if len(dropped) > 0 {
		l.msgs = kept
		l.indexMessagesLocked()
		l.repairs = append(l.repairs, sessions.Repair{File: sessions.MessagesFile,
			Action: fmt.Sprintf("%d reply(ies) cut before their first output dropped: %v", len(dropped), dropped)})
	}
	return dropped
}

// cutStep reports whether a message is a reply opened and cut before its
// first output: an assistant message never completed, with nothing in it.
func cutStep(m sessions.Message) bool {
	return m.Role == sessions.Assistant && !m.Complete && emptyReply(m)
}

// emptyReply reports whether a message holds nothing: no text, no tool
// call, no reasoning.
func emptyReply(m sessions.Message) bool {
	for _, p := range m.Parts {
		if p.Tool != nil || p.Text != "" || p.Signature != "" || p.Redacted != "" {
			return false
		}
	}
	return true
}
