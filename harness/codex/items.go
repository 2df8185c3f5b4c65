package codex

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// Tool names of the parts that Codex's own tools become.
const (
	ToolExec  = "exec"
	ToolPatch = "apply_patch"
)

// turnState turns one Codex turn's notifications into Emitter calls. It is
// used from the turn's goroutine only.
type turnState struct {
	out      harness.Emitter
	threadID string
	turnID   string // "" until turn/start answers
	root     string // the workspace, to show paths relative to it

	open      map[string]bool         // tool parts started and not yet given a result
	order     []string                // open tool ids in start order
	changes   map[string][]fileChange // file changes by item, for their approvals
	commands  map[string]string       // commands by item, for their approvals
	streamed  map[string]bool         // items whose text came as deltas
	output    map[string]*strings.Builder
	denied    map[string]string // items the operator denied, with the message
	cancelled map[string]bool   // items whose approval the turn's end cancelled

	lastText bool // the last part emitted was text
	usage    sessions.Usage
	failure  string // the last non-retried error notification
	done     *turn  // turn/completed, once seen
	// unauthorized marks a non-retried error that is the API refusing
	// Codex's login or key.
	unauthorized bool
}

func newTurnState(out harness.Emitter, threadID, root string) *turnState {
	return &turnState{out: out, threadID: threadID, root: root, open: map[string]bool{}, changes: map[string][]fileChange{},
		commands: map[string]string{}, streamed: map[string]bool{}, output: map[string]*strings.Builder{},
		denied: map[string]string{}, cancelled: map[string]bool{}}
}

// ours reports whether a notification belongs to this turn: its thread, and
// its turn once the turn's id is known.
func (t *turnState) ours(threadID, turnID string) bool {
	if threadID != "" && threadID != t.threadID {
		return false
	}
	return t.turnID == "" || turnID == "" || turnID == t.turnID
}

// notification applies one notification. It returns an error only for a
// notification of this turn whose params do not decode.
func (t *turnState) notification(m message) error {
	switch m.Method {
	case "item/started", "item/completed":
		var n itemNotification
		if err := decodeParams(m, &n); err != nil || !t.ours(n.ThreadID, n.TurnID) {
			return err
		}
		if m.Method == "item/started" {
			t.itemStarted(n.Item)
		} else {
			t.itemCompleted(n.Item)
		}
	case "item/agentMessage/delta", "item/reasoning/summaryTextDelta", "item/reasoning/textDelta",
		"item/commandExecution/outputDelta", "item/fileChange/outputDelta":
		var n deltaNotification
		if err := decodeParams(m, &n); err != nil || !t.ours(n.ThreadID, n.TurnID) {
			return err
		}
		t.delta(m.Method, n)
	case "item/reasoning/summaryPartAdded":
		var n struct {
			SummaryIndex int `json:"summaryIndex"`
		}
		if err := decodeParams(m, &n); err != nil {
			return err
		}
		if n.SummaryIndex > 0 { // a new summary paragraph: keep them apart
			t.reasoning("\n\n")
		}
	case "thread/tokenUsage/updated":
		var n tokenUsageNotification
		if err := decodeParams(m, &n); err != nil || !t.ours(n.ThreadID, n.TurnID) {
			return err
		}
		t.usage.InputTokens += n.TokenUsage.Last.InputTokens
		t.usage.OutputTokens += n.TokenUsage.Last.OutputTokens
		t.out.Usage(t.usage)
	case "error":
		var n errorNotification
		if err := decodeParams(m, &n); err != nil || !t.ours(n.ThreadID, n.TurnID) {
			return err
		}
		if n.WillRetry {
			t.out.Notice("retrying: " + n.Error.Message)
		} else {
			t.failure = n.Error.Message
			t.unauthorized = n.Error.unauthorized()
		}
	case "warning", "configWarning", "deprecationNotice":
		var n warningNotification
		if err := decodeParams(m, &n); err != nil {
			return err
		}
		if s := firstNonEmpty(n.Message, n.Summary); s != "" {
			t.out.Notice("codex: " + s)
		}
	case "turn/completed":
		var n turnNotification
		if err := decodeParams(m, &n); err != nil {
			return err
		}
		if n.ThreadID == t.threadID && (t.turnID == "" || n.Turn.ID == t.turnID) {
			tn := n.Turn
			t.done = &tn
		}
	}
	return nil
}

func decodeParams(m message, v any) error {
	if err := json.Unmarshal(m.Params, v); err != nil {
		return fmt.Errorf("%w: %s params do not decode: %w", ErrProtocol, m.Method, err)
	}
	return nil
}

func (t *turnState) text(s string) {
	if s == "" {
		return
	}
	t.out.Text(s)
	t.lastText = true
}

func (t *turnState) reasoning(s string) {
	if s == "" {
		return
	}
	t.out.Reasoning(s)
	t.lastText = false
}

func (t *turnState) itemStarted(it item) {
	switch it.Type {
	case "agentMessage":
		if t.lastText {
			t.text("\n\n") // two messages in a row stay two paragraphs
		}
	case "commandExecution":
		t.commands[it.ID] = it.Command
		t.startTool(it.ID, ToolExec, map[string]any{"command": it.Command})
	case "fileChange":
		t.changes[it.ID] = it.Changes
		t.startTool(it.ID, ToolPatch, map[string]any{"changes": patchInput(it.Changes, t.root)})
	case "mcpToolCall":
		t.startTool(it.ID, "mcp:"+it.Server+"/"+it.Tool, rawOrNull(it.Arguments))
	case "dynamicToolCall":
		t.startTool(it.ID, it.Tool, rawOrNull(it.Arguments))
	case "webSearch":
		t.startTool(it.ID, "web_search", map[string]any{"query": it.Query})
	}
}

func (t *turnState) startTool(id, name string, input any) {
	if id == "" || t.open[id] {
		return
	}
	b, _ := json.Marshal(input)
	t.out.ToolStart(id, name)
	t.out.ToolInput(id, string(b))
	t.open[id] = true
	t.order = append(t.order, id)
	t.lastText = false
}

func (t *turnState) finishTool(id, output string, state sessions.ToolState) {
	if !t.open[id] {
		return
	}
	delete(t.open, id)
	t.out.ToolResult(id, output, state)
}

func (t *turnState) delta(method string, n deltaNotification) {
	switch method {
	case "item/agentMessage/delta":
		t.streamed[n.ItemID] = true
		t.text(n.Delta)
	case "item/reasoning/summaryTextDelta", "item/reasoning/textDelta":
		t.streamed[n.ItemID] = true
		t.reasoning(n.Delta)
	default:
		b := t.output[n.ItemID]
		if b == nil {
			b = &strings.Builder{}
			t.output[n.ItemID] = b
		}
		if b.Len() < maxToolOutput {
			b.WriteString(n.Delta)
		}
	}
}

// maxToolOutput caps what a tool result keeps of streamed output.
const maxToolOutput = 1 << 20

func (t *turnState) itemCompleted(it item) {
	switch it.Type {
	case "agentMessage":
		if !t.streamed[it.ID] {
			if t.lastText && it.Text != "" {
				t.text("\n\n")
			}
			t.text(it.Text)
		}
	case "reasoning":
		if !t.streamed[it.ID] {
			t.reasoning(strings.Join(firstNonEmptySlice(stringList(it.Summary), stringList(it.Content)), "\n\n"))
		}
	case "commandExecution":
		t.startTool(it.ID, ToolExec, map[string]any{"command": it.Command})
		t.finishTool(it.ID, t.commandOutput(it), t.state(it))
	case "fileChange":
		t.startTool(it.ID, ToolPatch, map[string]any{"changes": patchInput(it.Changes, t.root)})
		t.finishTool(it.ID, t.patchOutput(it), t.state(it))
	case "mcpToolCall", "dynamicToolCall", "webSearch":
		t.itemStarted(it)
		out := string(it.Result)
		if e := errorText(it.ItemError); e != "" {
			out = e
		}
		t.finishTool(it.ID, out, t.state(it))
	}
}

// state maps an item's final status to a tool state.
func (t *turnState) state(it item) sessions.ToolState {
	switch {
	case t.cancelled[it.ID] || it.Status == "inProgress":
		return sessions.ToolInterrupted
	case it.Status == "declined":
		return sessions.ToolDenied
	case it.Status == "failed" || errorText(it.ItemError) != "":
		return sessions.ToolError
	case it.ExitCode != nil && *it.ExitCode != 0:
		return sessions.ToolError
	}
	return sessions.ToolDone
}

func (t *turnState) commandOutput(it item) string {
	var out string
	switch {
	case it.AggregatedOutput != nil:
		out = *it.AggregatedOutput
	case t.output[it.ID] != nil:
		out = t.output[it.ID].String()
	}
	switch {
	case t.cancelled[it.ID]:
		return "interrupted"
	case it.Status == "declined":
		return firstNonEmpty(t.denied[it.ID], "declined by the operator")
	case it.ExitCode != nil && *it.ExitCode != 0:
		return strings.TrimRight(out, "\n") + fmt.Sprintf("\n(exit code %d)", *it.ExitCode)
	}
	return out
}

func (t *turnState) patchOutput(it item) string {
	if t.cancelled[it.ID] {
		return "interrupted"
	}
	if it.Status == "declined" {
		return firstNonEmpty(t.denied[it.ID], "declined by the operator")
	}
	if b := t.output[it.ID]; b != nil && b.Len() > 0 {
		return b.String()
	}
	var lines []string
	for _, c := range it.Changes {
		lines = append(lines, c.Kind.Type+" "+c.Path)
	}
	return strings.Join(lines, "\n")
}

// closeOpen gives every tool part still open a result, so none dangles.
func (t *turnState) closeOpen(output string, state sessions.ToolState) {
	for _, id := range t.order {
		t.finishTool(id, output, state)
	}
	t.order = nil
}

func patchInput(changes []fileChange, root string) []map[string]string {
	out := make([]map[string]string, 0, len(changes))
	for _, c := range changes {
		m := map[string]string{"path": c.Path, "kind": c.Kind.Type, "diff": unifiedDiff(c, root)}
		if c.Kind.MovePath != "" {
			m["move_path"] = c.Kind.MovePath
		}
		out = append(out, m)
	}
	return out
}

// unifiedDiff shows a change as a unified diff: Codex sends an update as
// one already, an added or deleted file as its bare content.
func unifiedDiff(c fileChange, root string) string {
	c.Path = relPath(root, c.Path)
	c.Kind.MovePath = relPath(root, c.Kind.MovePath)
	prefix := ""
	var head string
	switch c.Kind.Type {
	case "add":
		prefix, head = "+", "--- /dev/null\n+++ b/"+c.Path+"\n"
	case "delete":
		prefix, head = "-", "--- a/"+c.Path+"\n+++ /dev/null\n"
	default:
		if strings.HasPrefix(c.Diff, "---") || strings.HasPrefix(c.Diff, "diff ") {
			return c.Diff
		}
		return "--- a/" + c.Path + "\n+++ b/" + firstNonEmpty(c.Kind.MovePath, c.Path) + "\n" + c.Diff
	}
	body := strings.TrimSuffix(c.Diff, "\n")
	lines := strings.Split(body, "\n")
	if body == "" {
		lines = nil
	}
	var b strings.Builder
	b.WriteString(head)
	if len(lines) > 0 {
		if prefix == "+" {
			fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", len(lines))
		} else {
			fmt.Fprintf(&b, "@@ -1,%d +0,0 @@\n", len(lines))
		}
	}
	for _, l := range lines {
		b.WriteString(prefix + l + "\n")
	}
	return b.String()
}

// relPath shows a path under the workspace relative to it.
func relPath(root, p string) string {
	if root != "" && strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/") {
		return p[len(strings.TrimSuffix(root, "/"))+1:]
	}
	return p
}

func rawOrNull(r json.RawMessage) any {
	if len(r) == 0 || !json.Valid(r) {
		return nil
	}
	return r
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func firstNonEmptySlice(s ...[]string) []string {
	for _, x := range s {
		if len(x) > 0 {
			return x
		}
	}
	return nil
}
