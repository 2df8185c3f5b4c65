// Package actions is the studio's Action required pane: everything that
// waits on the operator, answerable in place — approvals (with the command
// or the diff shown first), questions (answer, or take the default), WAITING
// sessions (send the next instruction, close, cancel), parks (nudge) and
// stuck reports.
//
// The root builds the list from the live view and hands it over whole; the
// pane keeps the selection on the same item across rebuilds and turns keys
// into Actions the root carries out.
package actions
