// Package procpool keeps one value per key, started on first use: the
// agent-process pool the claude, codex and acp adapters share, with one
// running CLI (or the state around it) per Atelier session.
//
// One lock guards the map. Lookup-or-start, removal and closing all are
// each one critical section, so two callers asking for the same key at once
// never start two processes. A start runs outside the lock (it may take
// seconds: spawning the CLI and its handshake); meanwhile the key holds an
// in-flight entry, and other callers for that key wait for its outcome
// rather than start their own. A failed start is not kept: the next caller
// tries again.
package procpool
