// Package codex is the Agent harness for the OpenAI Codex CLI, driven
// through `codex app-server`: JSON-RPC over the process's stdio, one process
// and one Codex thread per Atelier session, one Codex turn per Atelier turn.
//
// The thread's items become transcript parts as they stream: agent message
// deltas are text, reasoning summaries are reasoning, command executions are
// "exec" tool calls whose result is the command's output, file changes are
// "apply_patch" tool calls carrying their diffs. Codex's approval requests
// (server-to-client JSON-RPC requests) go to the operator through
// Host.Approve and are answered accept or decline, never "accept for
// session": session grants are the engine's, so a revoked grant takes effect
// at the next request. A cancelled turn is interrupted with turn/interrupt,
// a steer mid-turn goes in with turn/steer, and after a restart the thread
// is picked up again with thread/resume from the id kept in the session.
//
// Codex runs with the basic variables, its own (DeclaredEnv: OPENAI_*,
// CODEX_*, AZURE_OPENAI_*) taken from the environment Atelier started in,
// and the settings' (which win), wherever it runs, as claude does; another
// program's keys never reach it. A turn the API refuses for want of a
// login fails with ErrNotLoggedIn, saying how to log in.
//
// The message structs follow the schema that `codex app-server
// generate-json-schema` prints for the pinned CLI (0.171.0); unknown fields
// and notifications are ignored, malformed lines fail the turn.
package codex
