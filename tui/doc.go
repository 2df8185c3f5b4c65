// Package tui is Atelier's studio: a Bubble Tea program over the embedded
// engine. Run opens it on an engine; App is its one root model.
//
// The root only routes. It holds the panes (each a plain struct in its own
// package: sessions, files, transcript, activity, actions, diff, editor,
// terminal, settings, dialog) and which one has focus. Keys go, in order,
// to: an editor or terminal tab that captures the keys (every key but the
// release chord ctrl+], ctrl+c included), quit, the open dialog, a pane
// that takes text, the global keys, the focused pane. Panes and dialogs
// return typed actions; the root turns them into engine calls, which always
// run in tea.Cmds (they take the engine's lock and may fsync), never in
// Update.
//
// One goroutine (started by Run) bridges the engine's subscription to the
// program: it waits for the subscription to be ready, drains it and sends
// the batch as one message. Text and tool-input deltas arrive coalesced by
// the subscription; everything else (status changes, interactions, message
// revisions, queue changes) arrives one event each, in order. After an
// overflow the bridge takes a new snapshot and sends that instead.
//
// The centre's tabs are one tabSet (tabset.go), the only place that knows
// the kinds of tab (tabkinds.go): the rest of the studio reaches a session's
// tab, a file's editor or a terminal through its typed lookups and hands a
// tab its keys, paste, styles and messages through the tab interface. A
// message meant for one tab names it (TabID); the root gives it to
// tabs.get(id), and drops it when that tab is gone. What a tab's key asks
// of the studio comes back as the tab's typed action to its kind's root
// (sessionRoot, editorRoot, ...), the part that owns what it touches. TestOnlyTheTabSetKnowsTheKindsOfTab keeps it so.
//
// Editor and terminal tabs do their I/O in commands too: reading and
// saving files (as the operator, through the workspace), starting a shell
// on a pty, and one waiting command per terminal that turns its screen's
// updates into messages. A watcher batch naming an open file makes the
// root read it again and reload a clean editor or ask a dirty one.
//
// A session tab's turn history and its restores run through history.go:
// the log, each commit's files and diffs, and a restore's preview are read
// in commands; the preview is a dialog that names what changes, what was
// changed since by the operator or another session, and what is left
// alone; the confirmed restore is made for the session, so it shows in
// that history where it can be undone, and it is reported in the status
// line and the activity stream. The file tree's operations run as the
// operator in commands (fileops.go), and its blame line asks the history
// through a Blamer.
//
// Keymaps are data: keymaps.go holds every pane's, applies the
// configuration's [keys] overrides at New (an unknown action or a key
// that collides is named in the status line and ignored), and hands them
// to the panes and to each tab as it opens.
//
// The root routes; what it routes to are parts, each a struct that says in
// its doc comment what it owns, what it may touch and what it asks of its
// root through a narrow interface of its own. What they all share is the
// studio (studio.go: the options, the engine, the styles and keymaps, the
// clock, the status line, the live view, the tab set, the open dialog and
// the journal of the activity). The parts: instancesPart (instances.go:
// the instances, the Workspaces tab, what the file pane follows),
// workPart (work.go: editors, terminals, the file tree's operations),
// historyPart (historypart.go: a session's turn history and restores),
// settingsPart (settings.go: the settings tab, rules, runs,
// notifications), controlPart (control.go: what the operator asks of
// sessions), chrome (chrome.go: what no pane draws), journal (journal.go:
// the activity stream), tabMemory (tabstate.go: the tabs kept for the
// next studio) and screen (layout.go: the geometry and the focus). App
// keeps the message dispatch (app.go), the keys' routing (keys.go), the
// engine's events into the panes (events.go), the tabs' selection
// (tabs.go, worktabs.go), the mouse, the palette, the theme and quitting.
// TestTheRootDoesNotGrow keeps App under 60 methods.
package tui
