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
//
// Instances: a session on an instance (sessions.Session.Instance) works in
// the instance's folder, never the workspace's: its tools, policy checks,
// commands, agent process, terminals and container all go through its
// place (place.go), with the instance's own file access and leases; its
// turns are committed on the instance's chain of the workspace's history
// (insthistory.go); a new instance's setup command runs before its first
// turn (setup.go). The session's state (.state/) stays the workspace's.
//
// Lock order: Engine.mu before instsMu before the instance manager's own
// lock; placesMu and instHistMu are taken alone. An apply holds the
// manager's lock while it calls the engine's hooks, which therefore take
// neither Engine.mu nor ask the manager anything.
package core
