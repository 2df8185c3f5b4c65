package files

import "time"

// ChangeKind says what happened to a path.
type ChangeKind string

// The kinds of changes. Notice is not a change of a file but a message from
// the watcher the studio should show once (it fell back to polling, it
// rescanned after an overflow).
const (
	Created ChangeKind = "created"
	Changed ChangeKind = "changed"
	Deleted ChangeKind = "deleted"
	Renamed ChangeKind = "renamed"
	Notice  ChangeKind = "notice"
)

// Change is one coalesced change of the workspace, as the watcher reports it
// in its batches and the activity pane lists it.
type Change struct {
	Kind    ChangeKind
	Path    string // workspace-relative, slash-separated; "" for a notice
	OldPath string // the previous path of a rename
	By      string // a session id, Operator or External
	Time    time.Time
	IsDir   bool
	Size    int64  // after the change; 0 for deletions and folders
	Message string // a notice's text
}
