// Package scripted provides harnesses that play a script: the engine's own
// tests use them to produce every kind of harness output (text and
// reasoning deltas, tool calls, approval requests, questions, usage, stop
// reasons, errors) at moments the test controls.
package scripted
