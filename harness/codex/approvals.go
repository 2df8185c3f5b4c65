package codex

import (
	"context"
	"errors"
	"fmt"

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
			Kind: harness.ActionExec, Command: cmd, Reason: deref(p.Reason)})
	case "item/fileChange/requestApproval":
		var p fileApprovalParams
		if err := decodeParams(m, &p); err != nil {
			return c.refuse(m.ID, codeInvalidParams, err.Error())
		}
		return t.approve(ctx, c, host, m, fileApprovals(p, t.changes[p.ItemID], t.root)...)
	case "item/tool/requestUserInput":
		return t.ask(ctx, c, host, m)
	default:
		// Permission profiles, MCP elicitations, dynamic tools, auth
		// refreshes: nothing this adapter offers. Refusing keeps the CLI
		// from waiting for an answer that never comes.
		return c.refuse(m.ID, codeMethodNotFound, "not supported by Atelier: "+m.Method)
	}
}

// approve asks the host about each request of one Codex approval in turn
// and answers Codex accept only when every one is allowed: one denial
// declines the whole item, and the rest are not asked.
func (t *turnState) approve(ctx context.Context, c *conn, host harness.Host, m message, reqs ...harness.ApprovalRequest) error {
	ctx, stop := c.bound(ctx)
	defer stop()
	for _, req := range reqs {
		ans, err := host.Approve(ctx, req)
		if err != nil {
			if cause := c.cause(); cause != nil {
				return cause // the CLI died while the operator decided
			}
			t.cancelled[req.ToolCall] = true
			if rerr := c.respond(m.ID, approvalResponse{Decision: "cancel"}); rerr != nil {
				return errors.Join(err, fmt.Errorf("tell codex the approval was cancelled: %w", rerr))
			}
			return err
		}
		if !ans.Allowed {
			t.denied[req.ToolCall] = "denied by the operator"
			if ans.Message != "" {
				t.denied[req.ToolCall] += ": " + ans.Message
			}
			return c.respond(m.ID, approvalResponse{Decision: "decline"})
		}
	}
	return c.respond(m.ID, approvalResponse{Decision: "accept"})
}

// fileApprovals turns a file-change approval into one request per file it
// touches (a move's destination included), each with its own diff, so the
// engine judges every path: a patch that edits an ordinary file and
// .atelier.toml (or moves a file into .git/hooks) asks a person for the
// protected one, whatever the policy and the session's grants. With no
// change seen for the item, the request names the root Codex asks to
// write under.
func fileApprovals(p fileApprovalParams, changes []fileChange, root string) []harness.ApprovalRequest {
	base := harness.ApprovalRequest{ToolCall: p.ItemID, Tool: ToolPatch, Kind: harness.ActionWrite, Reason: deref(p.Reason)}
	var out []harness.ApprovalRequest
	seen := map[string]bool{}
	for _, ch := range changes {
		diff := unifiedDiff(ch, root)
		for _, path := range []string{ch.Path, ch.Kind.MovePath} {
			if path == "" || seen[path] {
				continue
			}
			seen[path] = true
			req := base
			req.Path, req.Diff = path, diff
			out = append(out, req)
		}
	}
	if len(out) == 0 {
		base.Path = deref(p.GrantRoot)
		out = append(out, base)
	}
	return out
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
