package engine

// MarkKind says how a path of the workspace changed since the last turn
// started: what the studio's file tree shows as A, M or D.
type MarkKind string

// The change marks.
const (
	MarkCreated MarkKind = "created"
	MarkChanged MarkKind = "changed"
	MarkDeleted MarkKind = "deleted"
)

// ChangeMark is one path of the workspace's change marks: the host keeps
// one set for the workspace (not each studio its own), so every studio,
// local or attached, shows the same marks, and one opened later shows
// what changed before it opened. The set empties when any session's turn
// starts; a host that restarts starts with an empty set.
type ChangeMark struct {
	Path string   `json:"path"` // workspace-relative, slash-separated
	Kind MarkKind `json:"kind"`
	// By is who made the change, where known: a session id, "operator"
	// or "external".
	By string `json:"by,omitempty"`
	// From is the old path of a file renamed to Path.
	From string `json:"from,omitempty"`
}
