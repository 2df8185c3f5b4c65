// Package acp is the Agent harness for any agent that speaks the Agent
// Client Protocol over stdio (Gemini CLI with --acp, OpenCode acp, the
// Claude Code and Codex ACP adapters...), given as a command line. It is the
// client side of the protocol, built on github.com/coder/acp-go-sdk: one
// agent process and one ACP session per Atelier session, one session/prompt
// per Atelier turn.
//
// The agent's session/update notifications become transcript parts (message
// chunks are text, thought chunks reasoning, tool calls tool parts with
// their content and diffs). What the agent asks of its client goes through
// the engine: session/request_permission to Host.Approve (answered with the
// agent's allow-once or reject-once option, never an "always" one, since
// session grants are the engine's), fs/read_text_file and
// fs/write_text_file to Host.ReadFile and Host.WriteFile (confinement,
// leases and attribution per request), terminal/* to Host.Exec in the
// session's execution environment. A cancelled turn sends session/cancel;
// after a restart the session is loaded again with session/load when the
// agent can.
package acp
