package transcript

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// below keeps what arrived under a view scrolled up, the way the activity
// pane counts the entries above its selection: the messages that came
// and those that streamed on, cleared once the view follows the newest
// line again. The transcript's last row says so while any did.
type below struct {
	grew  map[string]bool // messages that streamed on or came, by id
	added int             // of them, those that came
	// follow names the keys that follow the newest line again, for the
	// mark's hint (the tab's keymap: SetFollowKeys).
	follow string
}

// SetFollowKeys names the keys that follow the newest line again ("end/G"),
// which the mark of output below offers.
func (t *Transcript) SetFollowKeys(k string) { t.below.follow = k }

// arrived notes output of message id (added: a new message) unless the
// view follows it anyway.
func (t *Transcript) arrived(id string, added bool) {
	if t.follow {
		return
	}
	if t.below.grew == nil {
		t.below.grew = map[string]bool{}
	}
	if added {
		t.below.added++
	}
	t.below.grew[id] = true
}

// NewBelow reports whether output arrived below a view scrolled up.
func (t *Transcript) NewBelow() bool { return !t.follow && len(t.below.grew) > 0 }

// belowLine is the mark on the last row of a view scrolled up while
// output arrived: a new message counted, streamed text said.
func (t *Transcript) belowLine() string {
	text := "↓ new output below"
	switch n := t.below.added; {
	case n == 1:
		text += " · 1 new message"
	case n > 1:
		text += " · " + strconv.Itoa(n) + " new messages"
	}
	if t.below.follow != "" {
		text += " · " + t.below.follow + " follows"
	}
	return t.r.st.Accent.Render(ansi.Truncate(text, max(t.w, 1), "…"))
}
