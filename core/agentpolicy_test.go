package core

import (
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// TestAgentProgramPolicy: an agent program's permission request (claude,
// codex, ACP) is judged by the engine's one decision, as its own tools
// are: the read-only policy refuses a command and a write without asking
// and asks about a read; the auto policy allows; the agent's rules and a
// read-only session apply to the program's requests too.
func TestAgentProgramPolicy(t *testing.T) {
	denyRm := func(tool, subject string) (string, bool) {
		if tool == "Bash" && strings.HasPrefix(subject, "rm ") {
			return "deny", true
		}
		return "", false
	}
	for _, c := range []struct {
		name   string
		set    AgentSettings
		access sessions.Access
		req    harness.ApprovalRequest
		asks   bool   // it parks on an approval
		denied string // else: "" allowed, or what the agent is told
	}{
		{"read-only refuses a command", AgentSettings{Approval: PolicyReadOnly},
			"", harness.ApprovalRequest{Tool: "Bash", Kind: harness.ActionExec, Command: "make"}, false, "approval policy is read-only"},
		{"read-only refuses a write", AgentSettings{Approval: PolicyReadOnly},
			"", harness.ApprovalRequest{Tool: "Write", Kind: harness.ActionWrite, Path: "a.txt"}, false, "approval policy is read-only"},
		{"read-only refuses what it cannot class", AgentSettings{Approval: PolicyReadOnly},
			"", harness.ApprovalRequest{Tool: "mcp__x__y"}, false, "approval policy is read-only"},
		{"read-only asks about a read", AgentSettings{Approval: PolicyReadOnly},
			"", harness.ApprovalRequest{Tool: "Read", Kind: harness.ActionRead, Path: "/etc/hosts"}, true, ""},
		{"ask asks", AgentSettings{Approval: PolicyAsk},
			"", harness.ApprovalRequest{Tool: "Bash", Kind: harness.ActionExec, Command: "make"}, true, ""},
		{"auto allows", AgentSettings{Approval: PolicyAuto},
			"", harness.ApprovalRequest{Tool: "Bash", Kind: harness.ActionExec, Command: "make"}, false, ""},
		{"the agent's rules deny", AgentSettings{Approval: PolicyAuto, Rules: func(tool, subject string) (string, bool) { return denyRm(tool, subject) }},
			"", harness.ApprovalRequest{Tool: "Bash", Kind: harness.ActionExec, Command: "rm -rf build"}, false, "agent's rules"},
		{"a read-only session refuses a write", AgentSettings{Approval: PolicyAuto},
			sessions.ReadOnly, harness.ApprovalRequest{Tool: "Edit", Kind: harness.ActionWrite, Path: "a.txt"}, false, "session is read-only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := c.req
			req.ToolCall = "t1"
			a := &scripted.Agent{Script: []scripted.Step{{Approvals: []harness.ApprovalRequest{req},
				Calls: []harness.ToolCall{toolCall("t1", req.Tool, map[string]any{"command": req.Command})}}}}
			e, err := Open(t.TempDir(), Options{Agents: agentResolver{"a", a, c.set}, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			_, sub := e.Subscribe()
			r := &rig{t: t, e: e, sub: sub}
			t.Cleanup(func() { sub.Close(); closeEngine(t, e) })
			id := r.create(CreateOptions{Agent: "a", AutoStart: true, Access: c.access}).ID
			if c.asks {
				it := r.interaction(id, sessions.Approval)
				if it.Tool != req.Tool || it.Protected {
					t.Fatalf("approval %+v", it)
				}
				if err := e.As("").Answer(id, it.ID, Answer{Decision: sessions.AllowOnce}); err != nil {
					t.Fatal(err)
				}
			}
			r.status(id, sessions.Ended)
			msgs, _, err := e.Transcript(id)
			if err != nil {
				t.Fatal(err)
			}
			ts := tools(msgs)
			if len(ts) != 1 {
				t.Fatalf("tool calls %+v", ts)
			}
			switch {
			case c.denied == "" && ts[0].State != sessions.ToolDone:
				t.Fatalf("want it allowed, got %+v", ts[0])
			case c.denied != "" && (ts[0].State != sessions.ToolDenied || !strings.Contains(ts[0].Output, c.denied)):
				t.Fatalf("want it denied (%q), got %+v", c.denied, ts[0])
			}
			if !c.asks && len(e.Snapshot().Interactions) != 0 {
				t.Fatalf("it asked: %+v", e.Snapshot().Interactions)
			}
		})
	}
}
