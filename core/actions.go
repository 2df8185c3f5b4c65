package core

import (
	"sort"

	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// The Action required set's types are the engine package's.
type (
	ActionKind = engine.ActionKind
	ActionItem = engine.ActionItem
)

// The members of the Action required set (DESIGN.md §1).
const (
	NeedsApproval = engine.NeedsApproval
	NeedsAnswer   = engine.NeedsAnswer
	NeedsInput    = engine.NeedsInput
	CanNudge      = engine.CanNudge
	IsStuck       = engine.IsStuck
)

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
