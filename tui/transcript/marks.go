package transcript

import (
	"time"

	sess "github.com/atelier-studio/atelier/sessions"
)

// markPrefix begins the ids of the studio's own lines in a transcript:
// the engine's message ids never do, so a mark and a message cannot meet
// in byID.
const markPrefix = "studio-mark:"

// mark is a line the studio adds to a session's transcript for what the
// operator did (a stop: "interrupted"). The engine keeps the stop in the
// session's turn log, not among its messages, so the tab keeps its marks
// and places them again after a reload, each after the message it
// followed.
type mark struct {
	id, after, text string
	at              time.Time
}

// Mark adds an "interrupted"-style line of the studio's own after the
// newest message. The caller keeps the returned mark to place it again
// after the transcript is set anew (Remark).
func (t *Transcript) Mark(text string, at time.Time) mark {
	m := mark{id: markPrefix + at.Format(time.RFC3339Nano) + ":" + text, after: t.lastMessageID(), text: text, at: at}
	t.place(m)
	return m
}

// Remark places marks kept from before a reload; a mark whose message is
// not loaded (an older one, beyond the tail) stays out of sight.
func (t *Transcript) Remark(marks []mark) {
	for _, m := range marks {
		t.place(m)
	}
}

// place inserts m after its message and the marks already following it
// (at the start when it followed none); the entries after it move down.
func (t *Transcript) place(m mark) {
	if _, ok := t.byID[m.id]; ok {
		return
	}
	at := 0
	if m.after != "" {
		i, ok := t.byID[m.after]
		if !ok {
			return
		}
		at = i + 1
	}
	for at < len(t.entries) && t.entries[at].mark {
		at++
	}
	e := &entry{msg: sess.Message{ID: m.id, Role: sess.Notice, Time: m.at, Complete: true}, mark: true, text: m.text}
	e.items = []*item{{kind: headerItem}}
	t.entries = append(t.entries, nil)
	copy(t.entries[at+1:], t.entries[at:])
	t.entries[at] = e
	if at < len(t.entries)-1 {
		// Refs past the insertion point name other entries now.
		t.hasSel = false
		if t.top.m >= at {
			t.top.m++
		}
	}
	for i := at; i < len(t.entries); i++ {
		t.byID[t.entries[i].msg.ID] = i
	}
}

// lastMessageID is the id of the newest message of the session (not a
// mark), "" for an empty transcript.
func (t *Transcript) lastMessageID() string {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if !t.entries[i].mark {
			return t.entries[i].msg.ID
		}
	}
	return ""
}
