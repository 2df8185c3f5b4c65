package core

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/atelier-studio/atelier/files"
	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
	"github.com/atelier-studio/atelier/terminal"
)

// host is what an Agent harness gets of the engine during a turn: the
// operator (approvals, questions), the session's execution environment and
// the workspace's files.
type host struct {
	e *Engine
	l *live
	p *place // the session's place: the folder and files the agent works in
}

// Approve implements harness.Host with the engine's one policy decision
// (judge), as for its own tools: a protected path or a secret file asks a
// person whatever the policy and the grants, a session grant or the auto
// policy answers at once (the agent is still only told "allow once", so a
// revoked grant takes effect), the agent's and the workspace's rules
// apply, and a read-only policy or session refuses what it would refuse
// the engine's tools. The path verdict is the engine's (guardWrite,
// guardRead), whatever form the agent gave the path in (claude relative,
// codex and ACP absolute).
func (h *host) Approve(ctx context.Context, req harness.ApprovalRequest) (harness.ApprovalAnswer, error) {
	kind := kindOf(req)
	var g pathGuard
	switch {
	case req.Path == "":
	case kind == readTool:
		g = h.e.guardRead(h.p, req.Path)
	default:
		g = h.e.guardWrite(h.p, req.Path)
	}
	h.e.mu.Lock()
	v, msg := h.e.judge(h.l, req.Tool, kind, true, req.Command, req.Path, g)
	h.e.mu.Unlock()
	switch v {
	case allow:
		if msg != "" {
			h.e.noticeSession(h.l.rec.ID, msg) // the operator's standing rule
		}
		return harness.ApprovalAnswer{Allowed: true}, nil
	case refuse:
		return harness.ApprovalAnswer{Message: msg}, nil
	case human:
		return h.askPerson(ctx, req, msg)
	}
	return h.park(ctx, sessions.Interaction{Kind: sessions.Approval, Tool: req.Tool,
		ToolCall: req.ToolCall, Command: req.Command, Path: req.Path, Diff: req.Diff, Reason: req.Reason})
}

// kindOf classes an agent program's request as the engine's tools are
// classed. One the adapter could not class is a change: a write when it
// names a path, a command otherwise.
func kindOf(req harness.ApprovalRequest) toolKind {
	switch req.Kind {
	case harness.ActionRead:
		return readTool
	case harness.ActionWrite:
		return writeTool
	case harness.ActionExec:
		return execTool
	}
	if req.Path != "" {
		return writeTool
	}
	return execTool
}

// askPerson opens an approval only a person may answer (Protected), why
// leading its reason.
func (h *host) askPerson(ctx context.Context, req harness.ApprovalRequest, why string) (harness.ApprovalAnswer, error) {
	if req.Reason != "" {
		why += "; " + req.Reason
	}
	return h.park(ctx, sessions.Interaction{Kind: sessions.Approval, Tool: req.Tool, ToolCall: req.ToolCall,
		Command: req.Command, Path: req.Path, Diff: req.Diff, Reason: why, Protected: true})
}

// park waits for the operator's answer to an approval.
func (h *host) park(ctx context.Context, it sessions.Interaction) (harness.ApprovalAnswer, error) {
	res, err := h.l.park(ctx, it)
	if err != nil {
		return harness.ApprovalAnswer{}, err
	}
	allowed := res.Decision == sessions.AllowOnce || res.Decision == sessions.AllowSession
	return harness.ApprovalAnswer{Allowed: allowed, Message: res.Message}, nil
}

// Ask implements harness.Host.
func (h *host) Ask(ctx context.Context, text string, choices []string, def string) (string, error) {
	res, err := h.l.park(ctx, sessions.Interaction{Kind: sessions.Question, Text: text, Choices: choices, Default: def})
	if err != nil {
		return "", err
	}
	return res.Answer, nil
}

// Workspace implements harness.Host: the session's folder, its instance's
// for a session on an instance, where the agent runs and what it edits.
func (h *host) Workspace() string { return h.p.root }

// Spawn implements harness.Host. On the host, the agent gets only the
// environment it needs: the basics of a login (PATH, HOME, locale,
// proxies...) and what its adapter passes, never the rest of ours (other
// agents' keys, tokens). A container's environment has none of ours anyway.
func (h *host) Spawn(ctx context.Context, argv, env []string) (terminal.Process, error) {
	h.e.mu.Lock()
	en, err := h.l.envLocked()
	docker := h.l.rec.Execution == "docker"
	h.e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if !docker && len(argv) > 0 {
		wrapped := append([]string{"env", "-i"}, agentBaseEnv(os.Environ())...)
		wrapped = append(wrapped, env...)
		argv = append(wrapped, argv...)
		env = nil
	}
	return en.Spawn(ctx, argv, env)
}

// agentBaseEnv keeps the variables a program needs to run as the user:
// where things are, the locale, the terminal, proxies and certificates
// (harness.BaseEnv: the adapters' isolation keeps the same ones).
func agentBaseEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if harness.BaseEnv(k) {
			out = append(out, kv)
		}
	}
	return out
}

// Exec implements harness.Host.
func (h *host) Exec(ctx context.Context, req terminal.ExecRequest) (terminal.ExecResult, error) {
	return h.l.execFor(ctx, req)
}

// ReadFile implements harness.Host (an ACP agent's fs/read_text_file). A
// secret file (see guardRead) is read only once a person allows it, so its
// content does not reach the transcript by a silent read.
func (h *host) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if g := h.e.guardRead(h.p, path); g.secret {
		ans, err := h.askPerson(ctx, harness.ApprovalRequest{Tool: "read_file", Path: path}, g.reason(reasonSecret, path))
		if err != nil {
			return nil, err
		}
		if !ans.Allowed {
			return nil, fmt.Errorf("read %s: %s", path, denial(ans))
		}
	}
	release, err := h.p.leases.Read(ctx, h.l.rec.ID)
	if err != nil {
		return nil, err
	}
	defer release()
	c, err := h.p.files.ReadFile(h.l.rec.ID, path, files.ReadOptions{})
	if err != nil {
		return nil, err
	}
	return c.Data, nil
}

// WriteFile implements harness.Host (an ACP agent's fs/write_text_file,
// absolute paths being ACP's normal form). A protected path asks a person
// first, whatever the policy and the grants, with the diff of what is
// really written; a read-only session never writes.
func (h *host) WriteFile(ctx context.Context, path string, data []byte) error {
	if h.l.rec.Access == sessions.ReadOnly {
		return fmt.Errorf("write %s: %w", path, ErrReadOnlySession)
	}
	if g := h.e.guardWrite(h.p, path); g.protected {
		var old string
		if c, err := h.p.files.ReadFile(h.l.rec.ID, path, files.ReadOptions{}); err == nil {
			old = string(c.Data)
		}
		ans, err := h.askPerson(ctx, harness.ApprovalRequest{Tool: "write_file", Path: path,
			Diff: UnifiedDiff(path, old, string(data))}, g.reason(reasonProtected, path))
		if err != nil {
			return err
		}
		if !ans.Allowed {
			return fmt.Errorf("write %s: %s", path, denial(ans))
		}
	}
	release, err := h.p.leases.Write(ctx, h.l.rec.ID)
	if err != nil {
		return err
	}
	defer release()
	if err := h.p.files.WriteFile(h.l.rec.ID, path, data); err != nil {
		return err
	}
	h.l.noteWrite(path)
	return nil
}

// denial is what the agent is told of a refused request.
func denial(ans harness.ApprovalAnswer) string {
	if ans.Message != "" {
		return "denied by the operator: " + ans.Message
	}
	return "denied by the operator"
}
