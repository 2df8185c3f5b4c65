// Package state holds what a workspace's triggers look like from outside
// the host that runs them: a firing as the record keeps it, and each
// configured trigger with its last firing and next due time, as the
// engine API sends them. It sits apart from package trigger (which runs
// them on the engine) so that the API's client speaks it without
// importing the engine.
package state

import "time"

// Firing is one line of the firings' record (.state/triggers.jsonl). A
// firing's lines share its ID; the last one says where it got to.
type Firing struct {
	ID      string    `json:"id,omitempty"`
	Trigger string    `json:"trigger"`
	State   string    `json:"state"`
	Time    time.Time `json:"time"`
	// Scheduled is the time a schedule firing was due (for missed: the
	// last one missed); Schedule is the expression it was due under.
	Scheduled *time.Time `json:"scheduled,omitempty"`
	Schedule  string     `json:"schedule,omitempty"`
	// Cause says what fired it, for people: `event deploy (…)`, `3 changes`.
	Cause string `json:"cause,omitempty"`
	// Text is the rendered prompt (or workflow input), kept so that a
	// firing whose host died before it started can be finished.
	Text    string `json:"text,omitempty"`
	Session string `json:"session,omitempty"`
	Run     string `json:"run,omitempty"`
	Error   string `json:"error,omitempty"`
	Missed  int    `json:"missed,omitempty"`
}

// Trigger is one configured trigger of a workspace and how it fared.
type Trigger struct {
	Name string `json:"name"`
	// Condition is when it fires (`on_event "deploy"`, `schedule "@every
	// 30m"`, `on_change "*.go"`); Starts what it starts (`agent demo`,
	// `workflow implement`).
	Condition string `json:"condition"`
	// Event is the event an on_event trigger listens for ("" for the
	// other kinds), so a client that fires one can say which it fires.
	Event  string `json:"event,omitempty"`
	Starts string `json:"starts"`
	// KeepsAlive: a schedule or change trigger keeps its host up.
	KeepsAlive bool `json:"keeps_alive,omitempty"`
	// File and Line are where it is written.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Last is its newest firing (nil when it never fired).
	Last *Firing `json:"last,omitempty"`
	// Next is when a schedule is next due (nil for the other kinds, and
	// for a schedule that never comes).
	Next *time.Time `json:"next,omitempty"`
}
