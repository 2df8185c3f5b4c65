// Package api serves a workspace's engine over HTTP: the API that every
// process other than the engine's host (a second studio, the command line,
// an MCP bridge, other programs) uses to drive the workspace. It is a thin
// layer over *core.Engine: each route decodes and validates its request,
// calls one engine method and encodes the answer; errors become RFC 9457
// problem details with a stable code (problem.go).
//
// Routes are versioned under /v1/ and listed in the OpenAPI document served
// at /openapi.json (openapi.go); a test fails when the two disagree, and
// another lints the document as served with Redocly CLI, as the clients
// generated from it would read it.
//
// The live view (events.go) is Server-Sent Events. The server holds one
// engine subscription; a pump goroutine encodes each event once into a
// bounded ring, and every SSE client reads the ring at its own cursor. The
// pump never waits on a client, so a slow client never slows the engine:
// one that falls further behind than the ring holds is told to resync and
// gets a fresh snapshot. A client reconnecting with Last-Event-ID resumes
// from the ring without gap or repeat while the ring still holds the event
// after that id.
package api
