package codex

import (
	"context"
	"strings"

	"github.com/atelier-studio/atelier/harness"
)

// JSON-RPC error codes of the answers this adapter refuses with.
const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// request answers one server-to-client request of the turn. Approvals and
// questions block on the operator (the session parks); when ctx ends
// meanwhile the request is answered "cancel" and ctx's error returned, so
// the caller interrupts the turn.
func (t *turnState) request(ctx context.Context, c *conn, host harness.Host, m message) error {
	switch m.Method {
	case "item/commandExecution/requestApproval":
		var p commandApprovalParams
		if err := decodeParams(m, &p); err != nil {
			return c.refuse(m.ID, codeInvalidParams, err.Error())
		}
		cmd := t.commands[p.ItemID]
		if p.Command != nil {
			cmd = *p.Command
		}
		return t.approve(ctx, c, host, m, harness.ApprovalRequest{ToolCall: p.ItemID, Tool: ToolExec,
			Command: cmd, Reason: deref(p.Reason)})
	case "item/fileChange/requestApproval":
		var p fileApprovalParams
		if err := decodeParams(m, &p); err != nil {
			return c.refuse(m.ID, codeInvalidParams, err.Error())
		}
		req := harness.ApprovalRequest{ToolCall: p.ItemID, Tool: ToolPatch, Reason: deref(p.Reason)}
		var diffs []string
		for i, ch := range t.changes[p.ItemID] {
			if i == 0 {
				req.Path = ch.Path
			}
			diffs = append(diffs, unifiedDiff(ch, t.root))
		}
		req.Diff = strings.Join(diffs, "")
		if req.Path == "" {
			req.Path = deref(p.GrantRoot)
		}
		return t.approve(ctx, c, host, m, req)
	case "item/tool/requestUserInput":
		return t.ask(ctx, c, host, m)
	default:
		// Permission profiles, MCP elicitations, dynamic tools, auth
		// refreshes: nothing this adapter offers. Refusing keeps the CLI
		// from waiting for an answer that never comes.
		return c.refuse(m.ID, codeMethodNotFound, "not supported by Atelier: "+m.Method)
	}
}

func (t *turnState) approve(ctx context.Context, c *conn, host harness.Host, m message, req harness.ApprovalRequest) error {
	ctx, stop := c.bound(ctx)
	defer stop()
	ans, err := host.Approve(ctx, req)
	if err != nil {
		if cause := c.cause(); cause != nil {
			return cause // the CLI died while the operator decided
		}
		t.cancelled[req.ToolCall] = true
		_ = c.respond(m.ID, approvalResponse{Decision: "cancel"})
		return err
	}
	if ans.Allowed {
		return c.respond(m.ID, approvalResponse{Decision: "accept"})
	}
	t.denied[req.ToolCall] = "denied by the operator"
	if ans.Message != "" {
		t.denied[req.ToolCall] += ": " + ans.Message
	}
	return c.respond(m.ID, approvalResponse{Decision: "decline"})
}

// ask puts each of Codex's questions to the operator.
func (t *turnState) ask(ctx context.Context, c *conn, host harness.Host, m message) error {
	var p userInputParams
	if err := decodeParams(m, &p); err != nil {
		return c.refuse(m.ID, codeInvalidParams, err.Error())
	}
	res := userInputResponse{Answers: map[string]userInputAnswer{}}
	for _, q := range p.Questions {
		var choices []string
		for _, o := range q.Options {
			choices = append(choices, o.Label)
		}
		text := q.Question
		if q.Header != "" {
			text = q.Header + ": " + text
		}
		def := ""
		if len(choices) > 0 {
			def = choices[0]
		}
		actx, stop := c.bound(ctx)
		a, err := host.Ask(actx, text, choices, def)
		stop()
		if err != nil {
			if cause := c.cause(); cause != nil {
				return cause
			}
			_ = c.refuse(m.ID, -32000, "cancelled")
			return err
		}
		res.Answers[q.ID] = userInputAnswer{Answers: []string{a}}
	}
	return c.respond(m.ID, res)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
