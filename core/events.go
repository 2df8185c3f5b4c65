package core

import (
	"github.com/atelier-studio/atelier/sessions"
)

// EventKind says what changed.
type EventKind string

// Event kinds. Delta events are provisional and go out at once; every other
// kind is published only after what it reports is persisted.
const (
	EvSession     EventKind = "session"     // a session's record changed (status, title, usage...)
	EvRemoved     EventKind = "removed"     // a session was deleted
	EvMessage     EventKind = "message"     // a message revision (complete or a streaming checkpoint)
	EvDelta       EventKind = "delta"       // text or tool input appended to a part
	EvInteraction EventKind = "interaction" // an interaction opened or resolved
	EvQueue       EventKind = "queue"       // a session's pending input queue changed
	EvNotice      EventKind = "notice"      // a transient remark (retrying, superseded pause)
	EvResync      EventKind = "resync"      // the subscriber fell behind: take a new snapshot
	EvCommit      EventKind = "commit"      // a turn's history commit was written (Text: its hash)
	EvSignal      EventKind = "signal"      // a named event was fired (Text: its name; Signal: all of it)
	EvInstance    EventKind = "instance"    // an instance was created, applied or discarded (Text: its id)
)

// Signal is a named event fired on the workspace (FireEvent): what the
// wait tool's parks wake on and what triggers listen for. It is live, not
// persisted: an engine that opens later never sees it again, so a listener
// that must act on it once records that itself. ID is unique per firing.
type Signal struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Data  string `json:"data,omitempty"` // JSON, or "" when none was given
	Woken int    `json:"woken"`          // the parks it woke
}

// Delta is text appended to one part of a message.
type Delta struct {
	MessageID string            `json:"message_id"`
	Part      int               `json:"part"`
	Type      sessions.PartType `json:"type"`
	ToolID    string            `json:"tool_id,omitempty"`
	ToolName  string            `json:"tool_name,omitempty"`
	Text      string            `json:"text"`
}

// Event is one mutation of the live view. Seq increases by one per event
// across the engine; a snapshot stamped with Seq n is followed by n+1.
// Pointers are copies owned by the receiver.
type Event struct {
	Seq         uint64                `json:"seq"`
	Kind        EventKind             `json:"kind"`
	SessionID   string                `json:"session_id,omitempty"`
	Session     *sessions.Session     `json:"session,omitempty"`
	Message     *sessions.Message     `json:"message,omitempty"`
	Delta       *Delta                `json:"delta,omitempty"`
	Interaction *sessions.Interaction `json:"interaction,omitempty"`
	Queue       []sessions.Control    `json:"queue,omitempty"`
	Text        string                `json:"text,omitempty"`
	Turn        int                   `json:"turn,omitempty"`
	Signal      *Signal               `json:"signal,omitempty"`
}

// Snapshot is the state of the workspace at sequence number Seq: every
// session's record and every open interaction.
type Snapshot struct {
	Seq          uint64
	Sessions     []sessions.Session
	Interactions []OpenInteraction
	// Transcripts holds the messages of the sessions asked for.
	Transcripts map[string][]sessions.Message
}

// OpenInteraction is an unresolved interaction with its session.
type OpenInteraction struct {
	SessionID string
	sessions.Interaction
}

// instanceChanged tells every view that instance id was created, applied
// or discarded, so the studio's list of instances is read again.
func (e *Engine) instanceChanged(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.bus.publish(Event{Kind: EvInstance, Text: id})
}

// noticeSession publishes a notice about a session from a goroutine that
// does not hold the engine's lock.
func (e *Engine) noticeSession(id, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.bus.publish(Event{Kind: EvNotice, SessionID: id, Text: text})
}

// Notice publishes a remark about the workspace (sessionID "") or one of
// its sessions for every view of it: the studio's activity and the run log
// show it. It is for what runs beside the engine on its host (a trigger
// that fired) and has no record of its own in the sessions.
func (e *Engine) Notice(sessionID, text string) { e.noticeSession(sessionID, text) }
