// Package notify tells the operator of what waits on them while no studio
// is attached (issue 17, "channels"): a new approval, a new question, a
// session the watchdog reports stuck. A Notifier sends each Event through
// the channels its Settings configure: a desktop notification
// (notify-send, where the machine has a desktop session) and a command
// that reads the event as JSON on its standard input.
//
// Who decides. The engine host decides when to notify (host/notify.go:
// only while no studio is attached, once per interaction, never for one
// already answered) and hands the Notifier events whose text the engine's
// redactor already cleaned. This package only delivers.
//
// Concurrency. Post never blocks and never does I/O: it puts the event on
// a bounded queue that one goroutine of the Notifier empties, running the
// channels one event at a time, each run bounded by Settings.Timeout. A
// full queue drops the event and says so in the log. A channel that fails
// is logged (Options.Logf) and never stops the others or the caller. Test
// runs the channels at once, in the caller's goroutine, for the settings
// tab's "send a test".
//
// The package imports no other Atelier package: the host, the API and the
// studio share its types (Event, Status, Result) as they are.
package notify
