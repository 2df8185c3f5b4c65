package core

import "github.com/atelier-studio/atelier/sessions"

// transitions is the lifecycle table of DESIGN.md §1: every allowed move and
// no other. ENDED is terminal.
var transitions = map[sessions.Status][]sessions.Status{
	sessions.Created: {sessions.Running, sessions.Ended},
	sessions.Running: {sessions.Waiting, sessions.Paused, sessions.Ended},
	sessions.Waiting: {sessions.Running, sessions.Ended},
	sessions.Paused:  {sessions.Running, sessions.Ended},
}

// canMove reports whether the table allows from → to.
func canMove(from, to sessions.Status) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Action is an operator action on a session.
type Action string

// Actions, for the (status, action) table and TransitionError.
const (
	ActStart   Action = "start"
	ActPause   Action = "pause"
	ActResume  Action = "resume"
	ActStop    Action = "stop"
	ActCancel  Action = "cancel"
	ActSteer   Action = "steer"
	ActPrompt  Action = "send"
	ActClose   Action = "close"
	ActNudge   Action = "nudge"
	ActDelete  Action = "delete"
	ActArchive Action = "archive"
	ActFork    Action = "fork"
)

// allowedIn lists, per action, the statuses it may be taken in. Pause, stop
// and nudge need a turn in flight; close ends a session that never ran or
// waits between turns (on its next input, a question or a stop limit);
// resume also activates a session created without starting.
var allowedIn = map[Action][]sessions.Status{
	ActStart:   {sessions.Created},
	ActPause:   {sessions.Running},
	ActResume:  {sessions.Paused, sessions.Created},
	ActStop:    {sessions.Running},
	ActCancel:  {sessions.Created, sessions.Running, sessions.Waiting, sessions.Paused},
	ActSteer:   {sessions.Running, sessions.Waiting, sessions.Paused},
	ActPrompt:  {sessions.Created, sessions.Running, sessions.Waiting, sessions.Paused},
	ActClose:   {sessions.Created, sessions.Waiting},
	ActNudge:   {sessions.Running},
	ActDelete:  {sessions.Created, sessions.Running, sessions.Waiting, sessions.Paused, sessions.Ended},
	ActArchive: {sessions.Created, sessions.Running, sessions.Waiting, sessions.Paused, sessions.Ended},
	ActFork:    {sessions.Created, sessions.Running, sessions.Waiting, sessions.Paused, sessions.Ended},
}

// Allowed reports whether action may be taken on a session in status st.
func Allowed(st sessions.Status, a Action) bool {
	for _, s := range allowedIn[a] {
		if s == st {
			return true
		}
	}
	return false
}
