package core

import "github.com/atelier-studio/atelier/sessions"

// clearedText is the marker's text in the transcript.
const clearedText = "history cleared: the agent starts afresh from here"

// Clear starts a session's conversation afresh, as a chat's /clear does:
// after it the agent is shown nothing said before, and an agent that keeps
// its own history (Claude Code, Codex, an ACP agent) starts a new session
// of its own. Nothing is deleted: the transcript keeps every message with
// a marker where the clear applied, and the audit log records it (with c's
// client). Like a compaction it enters the queue and applies between turns.
func (c Caller) Clear(id string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlClear})
}

// Compact replaces a session's older history with a summary the agent
// writes; the task and the last turns stay verbatim. It waits for the turn
// in flight to end, and is refused for agents that keep their own history.
// It is sent by c's client.
func (c Caller) Compact(id string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlCompact})
}

// clearLocked applies a queued clear: the marker message bounds what the
// agent is shown (historyLocked) and the agent's own session token goes.
func (l *live) clearLocked(c sessions.Control) {
	msg, err := l.newMessageLocked(sessions.Cleared, []sessions.Part{{Type: sessions.TextPart, Text: clearedText}}, true)
	if err != nil {
		l.settleLocked(c, "refused", "clear: "+err.Error())
		l.publishQueueLocked()
		return
	}
	l.commitMessageLocked(msg.ID)
	l.rec.AgentResume = ""
	l.saveLocked()
	l.settleLocked(c, "applied", "")
	l.publishQueueLocked()
}

// sinceClearLocked is the part of the transcript after the latest clear:
// all of it when the session was never cleared.
func (l *live) sinceClearLocked() []sessions.Message {
	for i := len(l.msgs) - 1; i >= 0; i-- {
		if l.msgs[i].Role == sessions.Cleared {
			return l.msgs[i+1:]
		}
	}
	return l.msgs
}
