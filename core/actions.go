package core

import (
	"sort"
	"time"

	"github.com/atelier-studio/atelier/sessions"
)

// ActionKind says why a session is in the Action required set.
type ActionKind string

// The members of the Action required set (DESIGN.md §1).
const (
	NeedsApproval ActionKind = "approval"
	NeedsAnswer   ActionKind = "question"
	NeedsInput    ActionKind = "waiting"
	CanNudge      ActionKind = "park"
	IsStuck       ActionKind = "stuck"
)

// ActionItem is one thing that waits on the operator.
type ActionItem struct {
	Kind        ActionKind            `json:"kind"`
	SessionID   string                `json:"session_id"`
	Title       string                `json:"title"`
	Since       time.Time             `json:"since"`
	Interaction *sessions.Interaction `json:"interaction,omitempty"`
	WaitReason  sessions.WaitReason   `json:"wait_reason,omitempty"`
}

// Actions returns the workspace's Action required set, newest first: open
// approvals and questions, WAITING sessions, parks the operator may nudge,
// and sessions the watchdog reports stuck.
func (e *Engine) Actions() []ActionItem {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []ActionItem
	for _, l := range e.live {
		if l.rec.Archived {
			continue
		}
		for _, it := range l.openOrder() {
			it := it
			kind := map[sessions.InteractionKind]ActionKind{sessions.Approval: NeedsApproval,
				sessions.Question: NeedsAnswer, sessions.Park: CanNudge, sessions.Stuck: IsStuck}[it.Kind]
			if kind == "" {
				continue
			}
			out = append(out, ActionItem{Kind: kind, SessionID: l.rec.ID, Title: l.rec.Title, Since: it.Time, Interaction: &it})
		}
		if l.rec.Status == sessions.Waiting {
			out = append(out, ActionItem{Kind: NeedsInput, SessionID: l.rec.ID, Title: l.rec.Title,
				Since: l.rec.UpdatedAt, WaitReason: l.rec.WaitReason})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Since.After(out[j].Since) })
	return out
}
