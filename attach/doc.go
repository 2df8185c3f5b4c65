// Package attach is the one Go interface the studio drives a workspace's
// engine through, with its two implementations: Local, the engine this
// process hosts, and Remote, the engine another process hosts, reached
// over its HTTP API (api/client). The studio is the same program either
// way; only what cli hands it differs. Remote speaks in the engine's own
// types (package engine: events, snapshots, receipts, interactions), which
// the API client decodes into as they are, and maps the host's problems to
// core's error sentinels, so nothing above this package tells the two
// apart.
package attach
