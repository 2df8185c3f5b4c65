package files

import (
	"sync"
	"time"
)

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
	// Count is how many changes this entry stands for once the activity ring
	// merged repeats (a file saved ten times in a row); 1 otherwise.
	Count int
}

// DefaultActivityWindow is how close repeats of a change must be for the
// activity ring to merge them.
const DefaultActivityWindow = 10 * time.Second

// Activity is the bounded, in-memory list of recent changes the studio's
// activity pane shows. Repeats of the same change by the same actor within
// the window merge into one entry with a count; a file created and then
// written stays "created". It is safe for concurrent use.
type Activity struct {
	mu     sync.Mutex
	max    int
	window time.Duration
	items  []Change
	seq    uint64
}

// NewActivity returns a ring keeping the last capacity entries (at least
// 1); window 0 means DefaultActivityWindow.
func NewActivity(capacity int, window time.Duration) *Activity {
	if capacity < 1 {
		capacity = 1
	}
	if window <= 0 {
		window = DefaultActivityWindow
	}
	return &Activity{max: capacity, window: window}
}

// mergeLookback is how many recent entries a new change may merge into.
const mergeLookback = 16

// Add appends changes, merging repeats.
func (a *Activity) Add(changes ...Change) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range changes {
		if c.Count < 1 {
			c.Count = 1
		}
		a.seq++
		if i := a.mergeTarget(c); i >= 0 {
			e := a.items[i]
			e.Count += c.Count
			e.Time, e.Size = c.Time, c.Size
			a.items = append(a.items[:i], a.items[i+1:]...)
			a.items = append(a.items, e)
			continue
		}
		if len(a.items) == a.max {
			copy(a.items, a.items[1:])
			a.items = a.items[:len(a.items)-1]
		}
		a.items = append(a.items, c)
	}
}

func (a *Activity) mergeTarget(c Change) int {
	if c.Kind == Notice {
		return -1
	}
	for i := len(a.items) - 1; i >= 0 && i >= len(a.items)-mergeLookback; i-- {
		e := a.items[i]
		if e.Path != c.Path || e.By != c.By || c.Time.Sub(e.Time) > a.window {
			continue
		}
		if e.Kind == c.Kind || e.Kind == Created && c.Kind == Changed {
			return i
		}
		return -1 // a different change of the same path: keep the order
	}
	return -1
}

// Recent returns up to n entries, oldest first; n <= 0 means all.
func (a *Activity) Recent(n int) []Change {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n <= 0 || n > len(a.items) {
		n = len(a.items)
	}
	return append([]Change(nil), a.items[len(a.items)-n:]...)
}

// Seq grows with every change added, so a reader can tell it has news.
func (a *Activity) Seq() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.seq
}
