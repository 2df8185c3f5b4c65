// Package activity is the studio's activity pane: what happened in the
// workspace, newest first — sessions created, starting, waiting, ending;
// approvals and questions opened and answered, and by whom; the operator's
// own decisions, controls, file operations and restores; file changes the
// watcher saw; engine notices.
//
// The pane is memory only: the root adds entries as events and command
// results arrive, and the pane filters (by text, by kind) and draws the
// visible rows. It is bounded (Limit entries), so a long day does not grow
// it without end.
package activity
