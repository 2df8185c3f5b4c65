package badge

import (
	"fmt"
	"time"

	sess "github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/themes"
)

// Spinner is the frames shown while a session streams.
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Frame returns the spinner frame for a moment, so every spinner of the
// studio turns together without state.
func Frame(now time.Time) string {
	return spinner[(now.UnixMilli()/100)%int64(len(spinner))]
}

// Wait is what a session waits on inside RUNNING: the open interaction that
// parked it, if any.
type Wait struct {
	Kind     sess.InteractionKind // "" when not parked on anything known
	Deadline *time.Time           // a parked timer's end
}

// Badge is a session's state as shown.
type Badge struct {
	Icon string
	Word string
	Tone themes.Tone
	// Animated is true when the badge changes by itself (spinner,
	// countdown), so the studio keeps ticking.
	Animated bool
}

// Of returns the badge of a session.
func Of(s sess.Session, w Wait, now time.Time) Badge {
	switch s.Status {
	case sess.Created:
		if s.StartAt != nil {
			return Badge{"◷", Countdown(s.StartAt.Sub(now)), themes.ToneAccent, true}
		}
		return Badge{"○", "new", themes.ToneSubtle, false}
	case sess.Running:
		return running(s, w, now)
	case sess.Waiting:
		if s.WaitReason == sess.WaitQuestion {
			return Badge{"◆", "question", themes.ToneWarning, false}
		}
		return Badge{"◆", "waiting", themes.ToneWarning, false}
	case sess.Paused:
		return Badge{"‖", "paused", themes.ToneWarning, false}
	case sess.Ended:
		switch s.EndReason {
		case sess.Completed:
			return Badge{"✓", "done", themes.ToneSuccess, false}
		case sess.Failed:
			return Badge{"✗", "failed", themes.ToneError, false}
		case sess.Cancelled:
			return Badge{"⊘", "cancelled", themes.ToneSubtle, false}
		}
		return Badge{"⊘", string(s.EndReason), themes.ToneSubtle, false}
	}
	return Badge{"?", string(s.Status), themes.ToneSubtle, false}
}

func running(s sess.Session, w Wait, now time.Time) Badge {
	if s.SubState != sess.Parked {
		word := "running"
		if s.SubState == sess.Resumable {
			word = "queued"
		}
		return Badge{Frame(now), word, themes.ToneAccent, true}
	}
	switch w.Kind {
	case sess.Approval:
		return Badge{"▲", "approve?", themes.ToneWarning, false}
	case sess.Question:
		return Badge{"▲", "question", themes.ToneWarning, false}
	case sess.Park:
		if w.Deadline != nil {
			return Badge{"◷", Countdown(w.Deadline.Sub(now)), themes.ToneAccent, true}
		}
		return Badge{"◷", "parked", themes.ToneAccent, false}
	}
	return Badge{"◐", "parked", themes.ToneAccent, false}
}

// Countdown formats a remaining time: "9s", "4:05", "2h03".
func Countdown(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int((d + time.Second - 1) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%d:%02d", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02d", s/3600, s%3600/60)
}

// Detail is the long form of a session's status for a header: "RUNNING ·
// parked on an approval", "WAITING · question", "ENDED · failed: boom".
func Detail(s sess.Session, w Wait, now time.Time) string {
	out := string(s.Status)
	switch s.Status {
	case sess.Created:
		if s.StartAt != nil {
			out += " · starts in " + Countdown(s.StartAt.Sub(now))
		} else if !s.AutoStart {
			out += " · not started"
		}
	case sess.Running:
		out += " · " + string(s.SubState)
		if s.SubState == sess.Parked {
			out += parkedOn(w, now)
		}
	case sess.Waiting:
		out += " · " + waitWord(s.WaitReason)
	case sess.Paused:
		out += " · holds at a boundary until resumed"
	case sess.Ended:
		out += " · " + string(s.EndReason)
	}
	return out
}

func parkedOn(w Wait, now time.Time) string {
	switch w.Kind {
	case sess.Approval:
		return " on an approval"
	case sess.Question:
		return " on a question"
	case sess.Park:
		if w.Deadline != nil {
			return " on a timer: " + Countdown(w.Deadline.Sub(now)) + " left"
		}
		return " on an event"
	case sess.Stuck:
		return " · reported stuck"
	}
	return ""
}

func waitWord(r sess.WaitReason) string {
	switch r {
	case sess.WaitQuestion:
		return "the agent asked a question"
	case sess.WaitStopLimit:
		return "hit a stop limit"
	case sess.WaitAwaitingInput:
		return "awaiting your next instruction"
	case sess.WaitCannotResume:
		return "cannot resume after a restart"
	}
	return string(r)
}
