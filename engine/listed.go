package engine

import (
	"unicode/utf8"

	"github.com/atelier-studio/atelier/sessions"
)

// PreviewRunes is how much of a task a list carries (ListedSession): the
// first PreviewRunes characters, enough to tell sessions apart; the
// session's own record has the whole task.
const PreviewRunes = 200

// Ellipsis ends a task preview that was cut.
const Ellipsis = "…"

// ListedSession is a session as a list carries it: its record with the
// task (Instructions) cut to a preview, so that listing many sessions
// does not send every task whole. TaskTruncated says the task was cut;
// the session's own record (GET /v1/sessions/{id}) has all of it.
type ListedSession struct {
	sessions.Session
	TaskTruncated bool `json:"task_truncated,omitempty"`
}

// Listed is s as a list carries it (ListedSession).
func Listed(s sessions.Session) ListedSession {
	var cut bool
	s.Instructions, cut = TaskPreview(s.Instructions)
	return ListedSession{Session: s, TaskTruncated: cut}
}

// TaskPreview is the first PreviewRunes characters of task, ending in
// Ellipsis when it was longer (cut reports that), cut between characters,
// never inside one. A preview's preview is itself, so a list read back
// from the API and listed again says the same.
func TaskPreview(task string) (preview string, cut bool) {
	if utf8.RuneCountInString(task) <= PreviewRunes {
		return task, false
	}
	n := 0
	for i := range task {
		if n == PreviewRunes {
			return task[:i] + Ellipsis, true
		}
		n++
	}
	return task, false // not reached: task has more than PreviewRunes runes
}
