package core

import "github.com/atelier-studio/atelier/sessions"

// clearedText is the marker's text in the transcript.
const clearedText = "history cleared: the agent starts afresh from here"

// Clear starts the conversation afresh from the next boundary: the agent
// is shown nothing said before (the transcript keeps it all).
func (c Caller) Clear(id string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlClear})
}

// Compact asks, at the next boundary, for a summary of the older history,
// which then stands in for it in what the agent is shown.
func (c Caller) Compact(id string) (Receipt, error) {
	return c.submit(id, sessions.Control{Kind: sessions.CtlCompact})
}

// clearLocked applies a queued clear: the marker message bounds what the
// agent is shown (historyLocked) and the agent's own session token goes.
func (e *Engine) clearLocked(l *live, c sessions.Control) {
	msg, err := e.newMessageLocked(l, sessions.Cleared, []sessions.Part{{Type: sessions.TextPart, Text: clearedText}}, true)
	if err != nil {
		e.settleLocked(l, c, "refused", "clear: "+err.Error())
		e.publishQueueLocked(l)
		return
	}
	e.commitMessageLocked(l, msg.ID)
	l.rec.AgentResume = ""
	e.saveLocked(l)
	e.settleLocked(l, c, "applied", "")
	e.publishQueueLocked(l)
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
