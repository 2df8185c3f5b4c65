package badge

import (
	"strings"
	"time"

	sess "github.com/atelier-studio/atelier/sessions"
)

// Row is one line of the badge table: the glyph and word the session list
// shows, and what they mean.
type Row struct {
	Icon, Word, Meaning string
}

// Table lists every badge the studio draws, computed with Of itself, so
// the guide's table (Markdown) cannot drift from the screen.
func Table() []Row {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	later := now.Add(4*time.Minute + 5*time.Second)
	cases := []struct {
		s       sess.Session
		w       Wait
		meaning string
	}{
		{sess.Session{Status: sess.Created}, Wait{}, "created, not started"},
		{sess.Session{Status: sess.Created, StartAt: &later}, Wait{}, "created, starts at its time (a countdown)"},
		{sess.Session{Status: sess.Running, SubState: sess.Active}, Wait{}, "running a turn (a spinner)"},
		{sess.Session{Status: sess.Running, SubState: sess.Resumable}, Wait{}, "running, waiting for a worker"},
		{sess.Session{Status: sess.Running, SubState: sess.Parked}, Wait{Kind: sess.Approval}, "parked on an approval: answer it"},
		{sess.Session{Status: sess.Running, SubState: sess.Parked}, Wait{Kind: sess.Question}, "parked on a question: answer it"},
		{sess.Session{Status: sess.Running, SubState: sess.Parked}, Wait{Kind: sess.Park, Deadline: &later}, "parked on a timer (a countdown; w nudges it)"},
		{sess.Session{Status: sess.Waiting, WaitReason: sess.WaitAwaitingInput}, Wait{}, "waiting for its next input"},
		{sess.Session{Status: sess.Waiting, WaitReason: sess.WaitQuestion}, Wait{}, "waiting on its question"},
		{sess.Session{Status: sess.Paused}, Wait{}, "paused at a boundary: r resumes it"},
		{sess.Session{Status: sess.Ended, EndReason: sess.Completed}, Wait{}, "ended: completed"},
		{sess.Session{Status: sess.Ended, EndReason: sess.Failed}, Wait{}, "ended: failed (its error is in the tab)"},
		{sess.Session{Status: sess.Ended, EndReason: sess.Cancelled}, Wait{}, "ended: cancelled"},
	}
	out := make([]Row, 0, len(cases))
	for _, c := range cases {
		b := Of(c.s, c.w, now)
		icon := b.Icon
		if b.Animated && c.s.Status == sess.Running && c.s.SubState != sess.Parked {
			icon = strings.Join(spinner[:3], " ") + " …"
		}
		out = append(out, Row{Icon: icon, Word: b.Word, Meaning: c.meaning})
	}
	return out
}

// Markdown renders the table for the guide.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| glyph | word | means |\n|---|---|---|\n")
	for _, r := range Table() {
		b.WriteString("| `" + r.Icon + "` | " + r.Word + " | " + r.Meaning + " |\n")
	}
	return b.String()
}
