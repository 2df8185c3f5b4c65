package core

import (
	"fmt"

	"github.com/atelier-studio/atelier/sessions"
)

// Delete removes a session's folder; a live session is first ended
// force_deleted (its turn stopped, its interactions closed). Its turn
// commits stay in the history.
func (e *Engine) Delete(id string) error {
	e.mu.Lock()
	l, err := e.getLocked(id)
	if err != nil {
		e.mu.Unlock()
		return err
	}
	defer e.mu.Unlock()
	if !e.lease.held() {
		// A passive engine (no turn of its own, so the lock is held
		// throughout) deletes only while no engine runs the workspace,
		// holding the lease meanwhile.
		if err := e.lease.take(0); err != nil {
			return err
		}
		defer e.lease.drop()
	}
	if l.interruptLocked(intentDeleted) {
		done := l.turnDone
		e.mu.Unlock()
		<-done
		e.mu.Lock()
	}
	if l.rec.Status != sessions.Ended {
		l.interruptDanglingLocked("the session was deleted")
		l.endLocked(sessions.ForceDeleted, "")
	}
	if err := l.log.Close(); err != nil {
		e.bus.publish(Event{Kind: EvNotice, SessionID: l.rec.ID, Text: "closing the session's logs: " + err.Error()})
	}
	if err := e.store.Remove(l.rec.ID); err != nil {
		return err
	}
	delete(e.live, l.rec.ID)
	e.bus.publish(Event{Kind: EvRemoved, SessionID: l.rec.ID})
	return nil
}

// Fork creates a new CREATED session with the history of another up to and
// including message upTo ("" copies it all). Starting the fork continues
// from that history: with its first queued prompt, or with the original
// task when the history ends on the user's message.
func (e *Engine) Fork(id, upTo, title string) (sessions.Session, error) {
	e.mu.Lock()
	l, err := e.getLocked(id)
	if err != nil {
		e.mu.Unlock()
		return sessions.Session{}, err
	}
	if err := l.ensureMessages(); err != nil {
		e.mu.Unlock()
		return sessions.Session{}, err
	}
	src := l.rec
	var msgs []sessions.Message
	found := upTo == ""
	for _, m := range l.msgs {
		msgs = append(msgs, m.Clone())
		if m.ID == upTo {
			found = true
			break
		}
	}
	e.mu.Unlock()
	if !found {
		return sessions.Session{}, fmt.Errorf("fork %s: no message %q", id, upTo)
	}
	if title == "" {
		title = src.Title + " (fork)"
	}
	rec, err := e.Create(CreateOptions{Agent: src.Agent, Title: title, Instructions: src.Instructions,
		Mode: sessions.Continuous, Access: src.Access, Execution: src.Execution, Image: src.Image, Approval: src.Approval})
	if err != nil {
		return rec, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	nl := e.live[rec.ID]
	nl.rec.ForkOf = src.ID
	for _, m := range msgs {
		if m.Turn > nl.rec.Turns {
			nl.rec.Turns = m.Turn
		}
		m.Rev = 0
		nl.msgIdx[m.ID] = len(nl.msgs)
		nl.msgs = append(nl.msgs, m)
		nl.nextMsg++
		nl.commitMessageLocked(m.ID)
	}
	nl.interruptDanglingLocked("the session was forked mid-call")
	nl.saveLocked()
	return nl.rec, nil
}
