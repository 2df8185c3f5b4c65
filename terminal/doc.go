// Package terminal runs a session's commands and terminals in its execution
// environment: on the host (Local) or, through the sub-package docker, in a
// per-session container. Both implement Env, the one interface the engine and
// the studio use for commands with results (Exec), long-lived processes that
// speak over stdio (Spawn) and interactive pty shells (Shell). The VT screen
// that draws a pty for the studio lives in the sub-package screen.
package terminal
