// Package workspaces is the studio's Workspaces tab: the workspace folder
// and its instances (issue 19), each with its kind, its sessions, its size
// on disk and its changes against its base, and the keys that review,
// apply, browse, branch or discard one. An instance no live session works
// on is marked unused, so the operator sees what to clean up.
//
// The pane is a plain struct over plain data (Data): the root reads the
// engine in commands and hands the pane the outcome with SetData; the
// pane's keys return typed actions (Diff, Apply, Files, Discard, Branch,
// Refresh, Notice) that the root carries out. Nothing here does I/O.
package workspaces
