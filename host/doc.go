// Package host runs one process per workspace that hosts the workspace's
// engine (DESIGN.md §4, "One engine per workspace"), and finds, stops and
// starts such a process from any other.
//
// Where things live. A host keeps nothing of its own in the workspace but
// .state/engine.json (when the state can be written): its lock, socket and
// runtime record are in the user's runtime directory,
// $XDG_RUNTIME_DIR/atelier/ or, without it, a private folder under the
// system's temporary directory (atelier-<uid>). That folder is owner-only
// (0700, owned by the user, not a symbolic link; any other is refused), so
// no other user and no container that mounts the workspace reaches them,
// and a read-only workspace can still be served. Per workspace it holds
// <key>.lock (an flock the host holds for its whole life), <key>.sock (the
// HTTP API on a unix socket, 0600) and <key>.json (the host's record: pid,
// socket, version, start time, workspace). The key is derived from the
// workspace state's id and the workspace's real path (see Locate).
//
// Invariants. Only the lock holder creates or removes the socket and the
// record; the lock file itself is never removed (removing a lock file that
// another process has open splits the lock). The record is written before
// the engine opens, so a process that finds the lock held names its pid.
//
// TCP and callers. With Options.TCP a host also serves the API on TCP,
// through a guard that requires the bearer token LoadToken keeps (0600,
// in the user's configuration folder); a non-loopback address needs TLS
// (tcp.go). On the unix socket it reads each caller's process id
// (SO_PEERCRED) so the API can refuse approvals from processes the host
// started (SpawnedCaller, peer.go).
//
// Idle exit. A host exits by itself after a grace period once no session is
// running, parked on a timer or scheduled, and no client is attached. It
// learns both from events (the engine's live view, the HTTP server's
// connection states), never by polling: an idle host sleeps on one timer.
//
// Notifications. With Options.Notifier a host tells the operator, through
// the workspace's channels (package notify), of each approval, question
// and stuck report opened while no studio is attached, so work left
// running in the background does not wait unseen. A studio is attached
// while one of its requests (labelled StudioLabel; its event stream stays
// in flight) is. A watcher goroutine with a subscription of its own
// decides (notify.go); the notifier's goroutine runs the channels: nothing
// of it happens under the engine's lock or in a request.
package host
