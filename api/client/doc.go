// Package client is the Go client of the engine's HTTP API (package api):
// what the studio, the command line and other programs use to drive a
// workspace's engine hosted by another process, over its unix socket or
// over TCP with a bearer token.
//
// It defines the API's wire types (the server encodes them too, so there is
// one copy) and never imports the engine: its data types are the store's
// (package sessions). Errors the server reports are *Problem values that
// keep the server's stable code. Events follows the live view over
// Server-Sent Events and reconnects by itself, resuming from the last event
// id without gap or repeat; when the server can no longer resume, the stream
// carries a resync event followed by a fresh snapshot.
package client
