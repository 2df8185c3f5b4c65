package tui

import (
	"time"

	"github.com/atelier-studio/atelier/tui/activity"
)

// journal is the activity stream as this studio writes it: every part
// logs through it, and it shows each entry in the activity pane and keeps
// it in the workspace's state (actlog, nil attached to another machine).
// It also remembers the paths this studio just wrote for the operator, so
// that the watcher's echo of the same change is not logged twice.
type journal struct {
	opts     *Options
	activity *activity.Pane
	// actlog keeps the activity stream in the state; opened is when this
	// studio started, so that loading the earlier entries skips its own.
	actlog *activityLog
	opened time.Time
	// wrote are the paths this studio just wrote for the operator (saves,
	// file operations), logged when made: the watcher's echo of the same
	// change is not logged again (ownEcho).
	wrote map[string]time.Time
}
