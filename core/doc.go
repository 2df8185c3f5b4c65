// Package core is the session engine: it runs sessions' turns on a pool of
// workers, applies the lifecycle of DESIGN.md §1, takes controls durably,
// keeps each session's input queue, opens and resolves interactions
// (approvals, questions, parks), runs the built-in tools of the engine's own
// tool loop, and publishes a live view to any number of subscribers.
//
// Concurrency: one mutex (Engine.mu) guards every session's in-memory state
// and the subscriber list. A state change is persisted, then published, while
// the mutex is held, so a subscriber's snapshot and the mutations after it
// line up exactly. Harnesses, tools and waits for the operator run without
// the mutex.
package core
