package core

import (
	"github.com/atelier-studio/atelier/engine"
)

// The event types are the engine package's, the one definition every
// client decodes into (see package engine).
type (
	EventKind       = engine.EventKind
	Signal          = engine.Signal
	Delta           = engine.Delta
	Event           = engine.Event
	Snapshot        = engine.Snapshot
	OpenInteraction = engine.OpenInteraction
)

// Event kinds (engine.EventKind).
const (
	EvSession     = engine.EvSession
	EvRemoved     = engine.EvRemoved
	EvMessage     = engine.EvMessage
	EvDelta       = engine.EvDelta
	EvInteraction = engine.EvInteraction
	EvQueue       = engine.EvQueue
	EvNotice      = engine.EvNotice
	EvResync      = engine.EvResync
	EvCommit      = engine.EvCommit
	EvSignal      = engine.EvSignal
	EvInstance    = engine.EvInstance
	EvMarks       = engine.EvMarks
)

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
