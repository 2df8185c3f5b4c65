package core

import (
	"context"
	"path"
	"strings"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/sessions"
)

// Approval policies (which actions need an answer).
const (
	PolicyAsk      = "ask"
	PolicyAuto     = "auto"
	PolicyReadOnly = "read-only"
)

// verdict is what the policy says of one tool call.
type verdict int

const (
	allow verdict = iota
	ask
	refuse
)

// judge applies the session's policy to a tool call. Writes to protected
// paths always ask, whatever the policy; a read-only session never writes.
func (e *Engine) judge(l *live, t *tool, command, p string) (verdict, string) {
	if t.kind == readTool || t.kind == interactTool {
		return allow, ""
	}
	if t.kind == writeTool && l.rec.Access == sessions.ReadOnly {
		return refuse, "denied: the session is read-only"
	}
	if t.kind == writeTool && e.opts.Files.Protected(p) {
		return ask, ""
	}
	if l.grants[grantKey(t.spec.Name, command, p)] {
		return allow, ""
	}
	if _, set, err := e.opts.Agents.Resolve(l.rec.Agent); err == nil && set.Rules != nil {
		subject := command
		if subject == "" {
			subject = p
		}
		if act, ok := set.Rules(t.spec.Name, subject); ok {
			switch act {
			case "allow":
				return allow, ""
			case "deny":
				return refuse, "denied by the agent's rules"
			}
			return ask, ""
		}
	}
	switch l.rec.Approval {
	case PolicyAuto:
		return allow, ""
	case PolicyReadOnly:
		return refuse, "denied: the approval policy is read-only"
	}
	return ask, ""
}

// approve checks the policy and, when it asks, parks the session on an
// approval. It reports whether the call may run and, if not, the message
// for the agent.
func (e *Engine) approve(ctx context.Context, c *call, t *tool, callID string) (bool, string) {
	var command, p string
	if t.target != nil {
		command, p = t.target(c)
	}
	e.mu.Lock()
	v, msg := e.judge(c.l, t, command, path.Clean("/" + p)[1:])
	e.mu.Unlock()
	switch v {
	case allow:
		return true, ""
	case refuse:
		return false, msg
	}
	it := sessions.Interaction{Kind: sessions.Approval, Tool: t.spec.Name, ToolCall: callID, Command: command, Path: p}
	if t.kind == writeTool {
		it.Diff = e.previewWrite(c, t, p)
	}
	res, err := e.park(ctx, c.l, it)
	if err != nil {
		return false, "interrupted: " + err.Error()
	}
	if res.Decision == sessions.AllowOnce || res.Decision == sessions.AllowSession {
		return true, ""
	}
	msg = "denied by the operator"
	if res.Message != "" {
		msg += ": " + res.Message
	}
	return false, msg
}

// previewWrite renders what a write would change, for the approval.
func (e *Engine) previewWrite(c *call, t *tool, p string) string {
	var old string
	if got, err := e.opts.Files.ReadFile(c.l.rec.ID, p, files.ReadOptions{}); err == nil {
		old = string(got.Data)
	}
	var neu string
	switch t.spec.Name {
	case "write_file":
		neu = c.str("content")
	case "edit_file":
		neu = strings.Replace(string(old), c.str("old_text"), c.str("new_text"), 1)
	}
	return UnifiedDiff(p, old, neu)
}
