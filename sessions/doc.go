// Package sessions holds the session model (sessions, messages, turns,
// controls, interactions) and its durable store under <workspace>/.state.
//
// The store is the single source of truth across processes: every record is
// either replaced atomically (session.json) or appended as one JSON line
// (the .jsonl logs), so a crash at any point leaves at worst a torn last
// line, which the next open cuts off and reports. Behaviour (what may change
// when) lives in package core; this package only keeps and checks records.
package sessions
