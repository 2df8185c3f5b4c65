package core

import (
	"fmt"
	"strings"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// keepTurns is how many of the latest turns a compaction keeps verbatim.
const keepTurns = 2

// compactInstructions asks the model for the summary.
const compactInstructions = `Summarize the conversation so far for your own later use: the task, what has been done (files changed, commands run and their outcome), decisions taken and why, and what remains. Be concise and concrete; keep file paths, names and numbers exact.`

// historyLocked is what a harness is shown of a session: everything since
// the latest clear, or, after a compaction, the first message (the task,
// or the first prompt after a clear), the latest summary (as the user's
// message) and the messages after the part it covers.
func (l *live) historyLocked() []sessions.Message {
	msgs := l.sinceClearLocked()
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == sessions.Summary {
			last = i
			break
		}
	}
	if last < 0 {
		return cloneMessages(msgs)
	}
	sum := msgs[last]
	var out []sessions.Message
	if msgs[0].Role == sessions.User {
		out = append(out, msgs[0].Clone())
	}
	s := sum.Clone()
	s.Role = sessions.User
	s.Parts = []sessions.Part{{Type: sessions.TextPart, Text: "Summary of the conversation so far:\n\n" + sum.Text()}}
	out = append(out, s)
	covered := true
	for i, m := range msgs {
		if !covered && i != 0 && m.Role != sessions.Summary {
			out = append(out, m.Clone())
		}
		if m.ID == sum.Covers {
			covered = false
		}
	}
	return out
}

// startCompactLocked runs a queued compaction: a model call without tools
// that writes the summary, on a worker slot, while the session waits.
// Inputs that arrive meanwhile stay queued until it is done.
func (l *live) startCompactLocked(c sessions.Control) {
	e := l.e
	h, set, err := l.agentLocked()
	m, ok := h.(harness.Model)
	if err != nil || !ok || !h.Caps().Compact {
		l.settleLocked(c, "refused", "this agent keeps its own history: compaction is "+harness.ErrUnsupportedInput.Error())
		e.bus.publish(Event{Kind: EvNotice, SessionID: l.rec.ID, Text: "compaction is not supported by this agent"})
		return
	}
	covers := ""
	for _, msg := range l.sinceClearLocked() {
		if msg.Turn <= l.rec.Turns-keepTurns && msg.Role != sessions.Summary {
			covers = msg.ID
		}
	}
	if covers == "" {
		l.settleLocked(c, "refused", fmt.Sprintf("nothing to compact: fewer than %d turns", keepTurns+1))
		return
	}
	history := l.historyLocked()
	l.compacting = true
	e.bus.publish(Event{Kind: EvNotice, SessionID: l.rec.ID, Text: "compacting the history…"})
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		text, err := l.summarize(m, set, history)
		e.mu.Lock()
		defer e.mu.Unlock()
		l.compacting = false
		if err != nil {
			l.settleLocked(c, "refused", "compaction failed: "+err.Error())
			e.bus.publish(Event{Kind: EvNotice, SessionID: l.rec.ID, Text: "compaction failed: " + err.Error()})
		} else {
			msg, _ := l.newMessageLocked(sessions.Summary, []sessions.Part{{Type: sessions.TextPart, Text: text}}, true)
			if msg != nil {
				msg.Covers = covers
				l.commitMessageLocked(msg.ID)
			}
			l.settleLocked(c, "applied", "")
		}
		if l.rec.Status == sessions.Waiting {
			l.nextInputLocked()
		}
	}()
}

// summarize asks the model for a summary, on a worker slot.
func (l *live) summarize(m harness.Model, set AgentSettings, history []sessions.Message) (string, error) {
	e := l.e
	if err := e.acquire(e.ctx); err != nil {
		return "", err
	}
	defer e.release()
	history = append(history, sessions.Message{ID: "compact", Role: sessions.User,
		Parts: []sessions.Part{{Type: sessions.TextPart, Text: compactInstructions}}, Complete: true})
	var buf textSink
	_, err := m.Step(e.ctx, harness.StepRequest{SessionID: l.rec.ID, Model: set.Model,
		Instructions: set.Instructions, History: history}, &buf)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(buf.String())
	if text == "" {
		return "", fmt.Errorf("the model wrote an empty summary")
	}
	return text, nil
}

// textSink is an Emitter that keeps only the text: a compaction's summary
// is not a transcript message until it is whole.
type textSink struct{ strings.Builder }

func (t *textSink) Text(d string)                                 { t.WriteString(d) }
func (t *textSink) Reasoning(string)                              {}
func (t *textSink) ToolStart(string, string)                      {}
func (t *textSink) ToolInput(string, string)                      {}
func (t *textSink) ToolResult(string, string, sessions.ToolState) {}
func (t *textSink) Usage(sessions.Usage)                          {}
func (t *textSink) Notice(string)                                 {}
