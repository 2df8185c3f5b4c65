package claude

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/atelier-studio/atelier/harness"
)

// deniedMessage is what the agent is told when the operator gives no reason.
const deniedMessage = "The operator denied this tool call."

// decide asks the operator about one can_use_tool request and builds the
// answer for the CLI. ok is false when ctx ended first: the CLI is then
// interrupting and withdraws the request itself, so nothing is answered.
// The CLI is only ever allowed once: "allow for this session" is the
// engine's own grant, so a revoked grant takes effect.
func decide(ctx context.Context, host harness.Host, ws, requestID string, req controlRequest) (answer, bool) {
	input := req.Input
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage(`{}`)
	}
	ans := answer{requestID: requestID, toolUseID: req.ToolUseID}
	if req.ToolName == "AskUserQuestion" {
		updated, err := askQuestions(ctx, host, input)
		if ctx.Err() != nil {
			return ans, false
		}
		if err != nil {
			ans.body, ans.denied = permissionDeny{Behavior: "deny", Message: "The question could not be asked: " + err.Error()}, true
			return ans, true
		}
		ans.body = permissionAllow{Behavior: "allow", UpdatedInput: updated}
		return ans, true
	}
	got, err := host.Approve(ctx, approvalFor(req, input, ws))
	if ctx.Err() != nil {
		return ans, false
	}
	switch {
	case err != nil:
		ans.body, ans.denied = permissionDeny{Behavior: "deny", Message: "The approval failed: " + err.Error()}, true
	case got.Allowed:
		ans.body = permissionAllow{Behavior: "allow", UpdatedInput: input}
	default:
		msg := got.Message
		if msg == "" {
			msg = deniedMessage
		}
		ans.body, ans.denied = permissionDeny{Behavior: "deny", Message: msg}, true
	}
	return ans, true
}

// toolInput holds the input fields of claude's built-in tools that an
// approval shows.
type toolInput struct {
	Command      string `json:"command"`
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Path         string `json:"path"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	Content      string `json:"content"`
	NewSource    string `json:"new_source"`
	URL          string `json:"url"`
	Edits        []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	} `json:"edits"`
}

// approvalFor turns a can_use_tool request into what the operator sees.
func approvalFor(req controlRequest, input json.RawMessage, ws string) harness.ApprovalRequest {
	var in toolInput
	_ = json.Unmarshal(input, &in) // a tool with other fields shows less
	ar := harness.ApprovalRequest{ToolCall: req.ToolUseID, Tool: req.ToolName, Kind: toolKinds[req.ToolName], Command: in.Command}
	p := firstOf(in.FilePath, in.NotebookPath, in.Path, req.BlockedPath)
	if p != "" {
		ar.Path = relPath(ws, p)
	}
	switch {
	case len(in.Edits) > 0:
		var b strings.Builder
		for _, e := range in.Edits {
			b.WriteString(hunk(e.OldString, e.NewString))
		}
		ar.Diff = diffHeader(ar.Path) + b.String()
	case in.OldString != "" || in.NewString != "":
		ar.Diff = diffHeader(ar.Path) + hunk(in.OldString, in.NewString)
	case in.Content != "":
		ar.Diff = diffHeader(ar.Path) + hunk("", in.Content)
	case in.NewSource != "":
		ar.Diff = diffHeader(ar.Path) + hunk("", in.NewSource)
	}
	if ar.Command == "" && in.URL != "" {
		ar.Command = in.URL
	}
	ar.Reason = firstOf(req.DecisionReason, req.Title, req.Description)
	return ar
}

// toolKinds class claude's built-in tools for the engine's approval
// policy; MCP tools and tools added later are left unknown.
var toolKinds = map[string]harness.ActionKind{
	"Read": harness.ActionRead, "Glob": harness.ActionRead, "Grep": harness.ActionRead, "LS": harness.ActionRead,
	"NotebookRead": harness.ActionRead, "WebFetch": harness.ActionRead, "WebSearch": harness.ActionRead,
	"Write": harness.ActionWrite, "Edit": harness.ActionWrite, "MultiEdit": harness.ActionWrite, "NotebookEdit": harness.ActionWrite,
	"Bash": harness.ActionExec, "BashOutput": harness.ActionExec, "KillShell": harness.ActionExec, "KillBash": harness.ActionExec,
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// relPath shows a path under the workspace relative to it, and any other
// path as it is. It only cuts the workspace's prefix, never cleans: the
// engine decides whether the path is protected by resolving it as the
// write will (a "sub/../x" through a symlinked sub lands elsewhere than
// its lexical reading), so it must get the path as claude will use it.
func relPath(ws, p string) string {
	p = filepath.ToSlash(p)
	ws = strings.TrimSuffix(filepath.ToSlash(ws), "/")
	if ws == "" || !strings.HasPrefix(p, "/") {
		return p
	}
	if rest, ok := strings.CutPrefix(p, ws+"/"); ok && rest != "" {
		return rest
	}
	return p
}

func diffHeader(path string) string {
	return "--- a/" + path + "\n+++ b/" + path + "\n"
}

// hunk shows a replacement as removed and added lines; claude's edits
// carry the exact strings, not line numbers.
func hunk(old, neu string) string {
	var b strings.Builder
	b.WriteString("@@\n")
	for _, l := range splitLines(old) {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range splitLines(neu) {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// question is one entry of AskUserQuestion's input.
type question struct {
	Question    string `json:"question"`
	Header      string `json:"header"`
	MultiSelect bool   `json:"multiSelect"`
	Options     []struct {
		Label string `json:"label"`
	} `json:"options"`
}

// askQuestions puts each of AskUserQuestion's questions to the operator
// and returns the tool's input with their answers added, which is how the
// CLI expects the answers back.
func askQuestions(ctx context.Context, host harness.Host, input json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil {
		return nil, err
	}
	var qs []question
	if err := json.Unmarshal(fields["questions"], &qs); err != nil {
		return nil, err
	}
	answers := map[string]string{}
	for _, q := range qs {
		var choices []string
		for _, o := range q.Options {
			choices = append(choices, o.Label)
		}
		text := q.Question
		if q.MultiSelect {
			text += " (one or more, separated by commas)"
		}
		a, err := host.Ask(ctx, text, choices, "")
		if err != nil {
			return nil, err
		}
		answers[q.Question] = a
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	fields["answers"] = b
	return json.Marshal(fields)
}
