// Package redact replaces the values of secrets (API keys, tokens,
// passwords) with a marker that names them, «redacted NAME», in text that
// Atelier writes down or prints: transcripts, audit logs, the run log and
// the command line's output. It is the second line of defence behind the
// scrubbed environments agents' commands run in: a value that reaches a
// command's output anyway never reaches the disk or the terminal.
//
// A Redactor is built once from name/value pairs (the configured keys and
// the variables whose names say secret) and is immutable, so it is safe for
// concurrent use; a nil *Redactor redacts nothing. A Stream redacts text
// that arrives in pieces (streamed deltas): it holds back the end of what
// it was given while that end could still be the start of a secret, so a
// value split across two pieces is caught, and gives it back at Flush.
//
// Workspace files are never rewritten: redaction applies to what Atelier
// records and shows, not to what an agent reads or writes.
package redact
