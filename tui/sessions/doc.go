// Package sessions is the studio's sessions pane: the workspace's sessions
// with a badge and a colour per status, a spinner while one streams, a
// countdown while one is parked on a timer or waits for its start time, an
// unread mark ("needs you" or "done") for what changed out of sight, and a
// fuzzy filter over title and agent plus a status filter.
//
// The pane is a plain struct the root model drives: it never calls the
// engine. Keys that act on a session come back as an Action for the root to
// carry out (and to confirm first where that is due).
package sessions
