// Package files is the studio's file tree pane: a view over the workspace
// package's Tree model (lazy, .gitignore-aware, live through the watcher,
// with marks on what changed since the last turn). Loading a folder is disk
// I/O, so it runs in a tea.Cmd that returns Loaded; everything else the
// pane does (moving, collapsing, applying a watcher batch, drawing the
// visible rows) is memory only.
//
// File operations (new file or folder, rename, delete, upload from and
// download to the host) are asked of the root as an Op: the root asks
// for a name, a path or a confirmation and runs the operation as the
// operator in a command.
//
// The last line of the pane blames the selection by turn: the session and
// turn that last changed it, from the workspace history. Blaming is git,
// so it runs through a Blamer in the command BlameSelected returns, once
// per path; answers are cached until the history changes (ForgetBlame, at
// a turn's commit or a restore), and an answer to a question asked before
// that is dropped.
package files
