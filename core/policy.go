package core

import (
	"context"
	"path"
	"strings"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/sessions/history"
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
	// human asks a person: a write to a protected path or a read of a
	// secret file. No policy, grant or rule answers it; the interaction
	// carries Protected, so no automatic answerer does either.
	human
)

// Reasons shown on the approvals only a person may answer.
const (
	reasonProtected = "writes a protected path"
	reasonSecret    = "reads a secret file"
)

// pathGuard is the engine's verdict on the path a tool call names, from
// the file layer's one resolution (files.Workspace.ProtectedPath) and the
// history's secret patterns.
type pathGuard struct {
	rel       string // canonical workspace-relative path ("" when unknown)
	protected bool   // writing it needs a person
	secret    bool   // reading it needs a person
}

// reason says why a person must answer, with the real path when the one
// the agent gave leads elsewhere (a symlink, "..", an absolute path).
func (g pathGuard) reason(why, given string) string {
	if g.rel != "" && g.rel != given {
		return why + " (" + g.rel + ")"
	}
	return why
}

// guardWrite resolves p as a write will, in the session's place pl, and
// says whether it is protected. It does file-system work: call it without
// e.mu.
func (e *Engine) guardWrite(pl *place, p string) pathGuard {
	// An error that leaves the verdict unprotected is one the write itself
	// meets (outside the workspace, a file used as a folder): it fails
	// there, with the same error, and the agent is told.
	rel, protected, _ := pl.files.ProtectedPath(p)
	return pathGuard{rel: rel, protected: protected}
}

// guardRead resolves p as a read will, in the session's place pl, and says whether it is a secret file
// (the history's secret patterns, the configured ones included), under any
// of the names it reaches: a symlink "notes.txt" to ".env" is one. It does
// file-system work: call it without e.mu.
func (e *Engine) guardRead(pl *place, p string) pathGuard {
	// A malformed configured pattern is reported where the history opens
	// (HistoryError); every other pattern still applies here.
	secrets, _ := history.NewSecrets(e.opts.HistoryOptions.ExtraSecretPatterns)
	// An error means the read fails the same way; the names reached so far
	// are still checked.
	names, _ := pl.files.Reaches(p)
	g := pathGuard{}
	if len(names) > 0 {
		g.rel = names[0]
	}
	for _, n := range names {
		if secrets.Match(n) {
			g.secret = true
		}
	}
	return g
}

// guard is the path verdict a built-in tool call needs: writes are checked
// for protected paths, reads of a file's content for secrets.
func (e *Engine) guard(pl *place, t *tool, p string) pathGuard {
	switch {
	case p == "":
		return pathGuard{}
	case t.kind == writeTool:
		return e.guardWrite(pl, p)
	case t.kind == readTool && t.spec.Name == "read_file":
		return e.guardRead(pl, p)
	}
	return pathGuard{}
}

// judge applies the session's policy to a tool call: one decision for the
// engine's own tools and for an agent program's permission requests
// (asked). Writes to protected paths and reads of secret files always ask
// a person, whatever the policy and the grants; a read-only session never
// writes; a read-only policy refuses all but reads. A read of the engine's
// own tools runs at once; a read an agent program asks about (outside the
// workspace, say) asks, as its own rules wanted, unless the policy is auto.
func (e *Engine) judge(l *live, name string, kind toolKind, asked bool, command, p string, g pathGuard) (verdict, string) {
	if kind == readTool && g.secret {
		return human, g.reason(reasonSecret, p)
	}
	if (kind == readTool && !asked) || kind == interactTool {
		return allow, ""
	}
	if kind == writeTool && l.rec.Access == sessions.ReadOnly {
		return refuse, "denied: the session is read-only"
	}
	if kind != readTool && g.protected {
		return human, g.reason(reasonProtected, p)
	}
	if g, ok := l.grants.allowing(name, command); ok {
		return allow, "allowed by the session's grant " + g.Key()
	}
	subject := command
	if subject == "" {
		subject = g.rel
	}
	if subject == "" {
		subject = path.Clean("/" + p)[1:]
	}
	if _, set, err := l.agentLocked(); err == nil && set.Rules != nil {
		if act, ok := set.Rules(name, subject); ok {
			switch act {
			case "allow":
				return allow, ""
			case "deny":
				return refuse, "denied by the agent's rules"
			}
			return ask, ""
		}
	}
	if e.opts.WorkspaceRule != nil {
		// The rule names the path as the approval showed it (as the agent
		// gave it) or as the workspace sees it.
		for _, s := range []string{subject, p} {
			if why, ok := e.opts.WorkspaceRule(name, s); ok && s != "" {
				return allow, why
			}
		}
	}
	switch l.rec.Approval {
	case PolicyAuto:
		return allow, ""
	case PolicyReadOnly:
		if kind == readTool {
			return ask, ""
		}
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
	g := e.guard(c.p, t, p)
	e.mu.Lock()
	v, msg := e.judge(c.l, t.spec.Name, t.kind, false, command, p, g)
	recheck := c.l.recheck[callID]
	delete(c.l.recheck, callID)
	e.mu.Unlock()
	if recheck && v == allow {
		// A call recorded before a restart that this user's engine did not
		// seal (a planted transcript): never run again without asking.
		v = ask
		msg = "this call was recorded before a restart and is not sealed by this user's Atelier: run it?"
	}
	switch v {
	case allow:
		if msg != "" {
			// Allowed by the operator's standing rule: say which, where
			// the approval would have been.
			e.noticeSession(c.l.rec.ID, msg)
		}
		return true, ""
	case refuse:
		return false, msg
	}
	it := sessions.Interaction{Kind: sessions.Approval, Tool: t.spec.Name, ToolCall: callID, Command: command, Path: p}
	if v == human {
		it.Protected, it.Reason = true, msg
	}
	if recheck && v == ask {
		it.Reason = msg
	}
	if t.kind == writeTool {
		it.Diff = e.previewWrite(c, t, p)
	}
	res, err := c.l.park(ctx, it)
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
	if got, err := c.p.files.ReadFile(c.l.rec.ID, p, files.ReadOptions{}); err == nil {
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
