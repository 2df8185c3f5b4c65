package workspaces

import (
	"fmt"

	"github.com/atelier-studio/atelier/instances"
	sess "github.com/atelier-studio/atelier/sessions"
)

// Data is what the tab shows: the folder's own sessions and the
// instances, as the root last read them.
type Data struct {
	// Folder is the sessions working on the workspace folder itself.
	Folder []sess.Session
	// Instances are the workspace's instances, oldest first.
	Instances []Instance
	// Err says why the instances could not be listed ("" when they were).
	Err string
	// Loaded is false until the first read came back.
	Loaded bool
}

// Instance is one instance as the tab shows it.
type Instance struct {
	ID     string
	Kind   instances.Kind
	Branch string // a worktree's branch
	// Sessions are the sessions on the instance, oldest first.
	Sessions []sess.Session
	// Summary is its size and changes; nil while they are measured.
	Summary *Summary
	// Err says why the summary could not be read.
	Err string
}

// Summary is an instance's size on disk and its changes against its base.
type Summary struct {
	Bytes                 int64
	Files, Added, Removed int
}

// Unused reports whether no session that has not ended works on the
// instance: nothing will change it any more, so it only waits to be
// applied, branched or discarded.
func (in Instance) Unused() bool {
	for _, s := range in.Sessions {
		if s.Status != sess.Ended {
			return false
		}
	}
	return true
}

// Changes says an instance's changes: "3 files +10 −2", "no changes".
func (s Summary) Changes() string {
	if s.Files == 0 {
		return "no changes"
	}
	files := "files"
	if s.Files == 1 {
		files = "file"
	}
	return fmt.Sprintf("%d %s +%d −%d", s.Files, files, s.Added, s.Removed)
}

// Bytes says an amount of disk the way people read it: 512 B, 12 KB,
// 4.0 MB, 1.2 GB.
func Bytes(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return fmt.Sprintf("%d KB", (n+k/2)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MB", float64(n)/(k*k))
	default:
		return fmt.Sprintf("%.1f GB", float64(n)/(k*k*k))
	}
}
