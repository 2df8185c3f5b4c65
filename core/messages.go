package core

import (
	"fmt"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// checkpointEvery is how often a streaming message is persisted even when
// no part has completed, so a crash loses at most this much streamed text.
const checkpointEvery = time.Second

// newMessageLocked adds a message to the transcript, persists its first
// revision and publishes it.
func (l *live) newMessageLocked(role sessions.Role, parts []sessions.Part, complete bool) (*sessions.Message, error) {
	e := l.e
	if err := l.ensureMessages(); err != nil {
		return nil, err
	}
	l.nextMsg++
	m := sessions.Message{
		ID: fmt.Sprintf("m%05d", l.nextMsg), Turn: l.rec.Turns, Role: role,
		Parts: parts, Time: e.opts.Now(), Complete: complete,
	}
	l.msgIdx[m.ID] = len(l.msgs)
	l.msgs = append(l.msgs, m)
	if err := l.persistMessageLocked(m.ID, complete || len(parts) > 0); err != nil {
		return nil, err
	}
	return &l.msgs[len(l.msgs)-1], nil
}

// msgLocked returns the transcript's working copy of a message.
func (l *live) msgLocked(id string) *sessions.Message {
	i, ok := l.msgIdx[id]
	if !ok {
		return nil
	}
	return &l.msgs[i]
}

// commitMessageLocked persists the next revision of a message, synced,
// then publishes it: durable before visible.
func (l *live) commitMessageLocked(id string) {
	l.storeFailedLocked(l.persistMessageLocked(id, true))
}

// persistMessageLocked writes the next revision of a message (synced when
// sync is true: what it holds was acknowledged or completed) and then
// publishes it.
func (l *live) persistMessageLocked(id string, sync bool) error {
	e := l.e
	m := l.msgLocked(id)
	m.Rev++
	snap := m.Clone()
	write := l.log.AppendMessage
	if !sync {
		write = l.log.AppendMessageUnsynced
	}
	if err := write(snap); err != nil {
		m.Rev--
		l.storeFailedLocked(err)
		return err
	}
	e.bus.publish(Event{Kind: EvMessage, SessionID: l.rec.ID, Message: &snap})
	return nil
}

// messageLocked adds a complete message; a failure fails the session (the
// error is handled there, so callers need not).
func (l *live) messageLocked(role sessions.Role, parts []sessions.Part) {
	if _, err := l.newMessageLocked(role, parts, true); err != nil {
		l.storeFailedLocked(err)
	}
}

// userMessageLocked records an input (task, prompt, steer, answer) as a user
// message of the current turn.
// from is the control that carried it ("" for the task).
func (l *live) userMessageLocked(text, from string) error {
	return l.userPartsLocked([]sessions.Part{{Type: sessions.TextPart, Text: text}}, from)
}

// userPartsLocked is userMessageLocked with the message's parts.
func (l *live) userPartsLocked(parts []sessions.Part, from string) error {
	e := l.e
	if err := l.ensureMessages(); err != nil {
		return err
	}
	l.nextMsg++
	m := sessions.Message{ID: fmt.Sprintf("m%05d", l.nextMsg), Turn: l.rec.Turns, Role: sessions.User,
		Parts: parts, Time: e.opts.Now(), Complete: true, Input: from}
	l.msgIdx[m.ID] = len(l.msgs)
	l.msgs = append(l.msgs, m)
	return l.persistMessageLocked(m.ID, true)
}

// interruptDanglingLocked gives every unfinished tool call of the
// transcript an interrupted result, so no tool call is ever left without
// one (after a cancel, a stop or a crash). A call that still has an open
// interaction (the engine quit while it waited on the operator) is left to
// the resumed turn, which waits on that interaction again.
func (l *live) interruptDanglingLocked(why string) int {
	if err := l.ensureMessages(); err != nil {
		return 0
	}
	n := 0
	for i := range l.msgs {
		m := &l.msgs[i]
		changed := false
		for j := range m.Parts {
			t := m.Parts[j].Tool
			if t != nil && !t.State.Finished() && !l.hasOpenCall(t.ID) {
				t.State = sessions.ToolInterrupted
				if t.Output == "" {
					t.Output = "interrupted: " + why
				}
				changed = true
				n++
			}
		}
		if changed || !m.Complete && m.Role == sessions.Assistant && !pendingCall(m, l) {
			m.Complete = true
			l.commitMessageLocked(m.ID)
		}
	}
	return n
}

// pendingCall reports whether a message holds a tool call that waits on an
// open interaction.
func pendingCall(m *sessions.Message, l *live) bool {
	for _, p := range m.Parts {
		if p.Tool != nil && !p.Tool.State.Finished() && l.hasOpenCall(p.Tool.ID) {
			return true
		}
	}
	return false
}
