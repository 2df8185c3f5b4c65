// Package files is the studio's file tree pane: a view over the workspace
// package's Tree model (lazy, .gitignore-aware, live through the watcher,
// with marks on what changed since the last turn). Loading a folder is disk
// I/O, so it runs in a tea.Cmd that returns Loaded; everything else the
// pane does (moving, collapsing, applying a watcher batch, drawing the
// visible rows) is memory only.
package files
