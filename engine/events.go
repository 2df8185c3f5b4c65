package engine

import "github.com/atelier-studio/atelier/sessions"

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
	EvMarks       EventKind = "marks"       // the workspace's change marks changed (Marks: the whole set now)
	// EvSnapshot is the API stream's own: the state the events after it
	// apply to. The engine never publishes it.
	EvSnapshot EventKind = "snapshot"
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
// Pointers are copies owned by the receiver. Its JSON is the API stream's
// event, field for field.
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
	// Marks is an EvMarks event's whole set of change marks, sorted by
	// path (empty when a turn started): the set is replaced, not patched,
	// so a client that missed one event is right again at the next.
	Marks []ChangeMark `json:"marks,omitempty"`
}

// Complete reports whether the event carries what its kind needs (a
// session event its record, a delta its text...): one from a stream that
// lacks it has nothing to apply.
func (ev Event) Complete() bool {
	switch ev.Kind {
	case EvSession:
		return ev.Session != nil
	case EvDelta:
		return ev.Delta != nil
	case EvMessage:
		return ev.Message != nil
	case EvInteraction:
		return ev.Interaction != nil
	case EvSnapshot:
		return false // the stream's, not the engine's
	}
	return true
}

// Snapshot is the state of the workspace at sequence number Seq: every
// session's record (or the one a stream is filtered to) and every open
// interaction. Transcripts holds the messages of the sessions asked for.
type Snapshot struct {
	Seq          uint64                        `json:"seq"`
	Sessions     []sessions.Session            `json:"sessions"`
	Interactions []OpenInteraction             `json:"interactions"`
	Transcripts  map[string][]sessions.Message `json:"transcripts,omitempty"`
	// Marks are the workspace's change marks now (see ChangeMark), sorted
	// by path; EvMarks events replace them.
	Marks []ChangeMark `json:"marks,omitempty"`
}

// OpenInteraction is an unresolved interaction with its session.
type OpenInteraction struct {
	SessionID string `json:"session_id"`
	sessions.Interaction
}
