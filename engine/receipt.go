package engine

import "github.com/atelier-studio/atelier/sessions"

// Receipt acknowledges a control: it is recorded durably, and When says
// when it takes effect ("now", "at the next step", "at the end of the
// agent's turn", "when the session starts", "queued: after the current
// turn", or, from a passive engine, "recorded: applied when the
// workspace's engine next runs the session"). A control that changes
// nothing (closing an ENDED session) has no ID.
type Receipt struct {
	ID   string `json:"id"`
	When string `json:"when"`
	// Key is set when an idempotency key had been given before: the item
	// it names (queued, started, done with its result, or uncertain), and
	// nothing new was sent.
	Key *sessions.KeyRecord `json:"key,omitempty"`
}
