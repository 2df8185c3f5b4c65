// Package claude is the Agent harness for the Claude Code CLI, driven
// headless over its stream-json stdio protocol (PROTOCOLS.md §1): one CLI
// process per session, kept between turns, started with
//
//	claude -p --input-format stream-json --output-format stream-json --verbose
//	       --include-partial-messages --replay-user-messages --permission-prompt-tool stdio
//
// Each turn writes one user message and reads until the CLI's result line.
// Partial messages stream as text, reasoning and tool-input deltas; the
// whole assistant lines that repeat them are not emitted twice. Tool
// results the CLI reports become the tool calls' results. The CLI's
// can_use_tool requests become the engine's approvals (always answered
// allow-once or deny), and its AskUserQuestion tool becomes questions.
// Cancelling a turn sends the interrupt control request and waits, bounded,
// for the result line, killing the process if it does not come; every tool
// call opened gets a result whatever ends the turn.
//
// Steering writes another user message mid-turn. The replayed echo of each
// message we write (--replay-user-messages) tells when the CLI has taken
// it, so a turn ends only at a result line once all of its input has been
// taken: a steer during a tool call joins the same turn, and one during a
// plain answer runs as a follow-up turn the same Turn waits for.
//
// After a restart the engine's persisted token (claude's session id) is
// given to a new process as --resume. The CLI runs with only the
// environment it needs: the few basic variables, the variables Claude Code
// reads for its own configuration and login (DeclaredEnv: ANTHROPIC_*,
// CLAUDE_CODE_*, Bedrock's and Vertex's) taken from the environment
// Atelier started in, the settings' base URL, key and extra variables
// (which win over inherited ones), and its telemetry and auto-update
// turned off. Another program's keys never reach it. A CLI without a
// login fails its turn with ErrNotLoggedIn, saying how to log in.
package claude
