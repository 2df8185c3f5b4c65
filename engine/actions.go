package engine

import (
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

// ActionItem is one thing that waits on the operator: an approval or a
// question (Interaction), a WAITING session (WaitReason), a park the
// operator may nudge, or a session reported stuck.
type ActionItem struct {
	Kind        ActionKind            `json:"kind"`
	SessionID   string                `json:"session_id"`
	Title       string                `json:"title"`
	Since       time.Time             `json:"since"`
	Interaction *sessions.Interaction `json:"interaction,omitempty"`
	WaitReason  sessions.WaitReason   `json:"wait_reason,omitempty"`
}
