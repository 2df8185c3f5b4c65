// Package terminal is the studio's terminal tab: a program on a pty (the
// user's shell in the workspace, or their $EDITOR on a file) drawn through
// the VT screen of package terminal/screen.
//
// Starting the program is I/O, so Start is a tea.Cmd that answers Started.
// The screen parses the program's output in goroutines of its own; Wait is
// the one command per tab that turns the screen's Updates channel into tea
// messages (Updated, then Exited when the program ends). The root re-arms
// it after each message, so at most one such command per tab is out and a
// tab that is not shown keeps running and keeps its screen current.
//
// A focused terminal receives every key, ctrl+c and esc included; the root
// keeps one chord (ctrl+]) to take the keys back.
package terminal
