// Package mcp is Atelier's Model Context Protocol server (`atelier mcp`):
// it offers the workspace's engine to another agent as tools, over stdio,
// with the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// It is a client of the engine's HTTP API like any other (package
// api/client, labelled "mcp" so the audit log names it): it never opens the
// engine or the store. Attach finds the process that hosts the workspace's
// engine (host.Probe) and, when none runs, starts a detached `atelier serve`
// (host.Detach) as the studio does.
//
// The bridge does not keep the host alive: between tool calls it holds no
// request open, so an idle host still exits after its grace. A call that
// finds the host gone (the socket refuses the connection, so the request
// never reached it) attaches again, starting a host when needed, and is
// sent once more; any other failure is the tool's error, never retried, so
// a prompt or a command without a key is never sent twice.
//
// Every tool takes a JSON object whose schema the SDK derives from the Go
// input struct (enums added by hand), and answers structured content (the
// output struct) plus one short line of text. An error the API reports
// (problem details) becomes a tool error whose text starts with its stable
// code ("unknown_session: ..."), so the calling agent can branch on it.
// What the tools return is bounded: a few messages, text only, each clipped.
package mcp
