package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// view is one turn's output: the Emitter, called under a lock because the
// SDK delivers notifications and requests on different goroutines, and the
// state of the turn's tool calls.
type view struct {
	mu     sync.Mutex
	out    harness.Emitter
	output func(terminalID string) string // a terminal's output, for its tool part
	tools  map[string]*toolState
	order  []string
	grown  chan struct{} // closed and replaced when a tool call appears or grows
	// cancelled is set once the turn is being cancelled, and turn is the
	// turn's context: a call the agent reports ended once either says so was
	// cut by the cancel (its terminal killed), so it is interrupted, not
	// done.
	cancelled bool
	turn      context.Context
}

type toolState struct {
	started bool // its part is open
	name    string
	kind    acpsdk.ToolKind // what the agent says the call does
	title   string
	input   any
	locs    []string
	content []acpsdk.ToolCallContent
	raw     any // rawOutput
	denied  string
	done    bool
}

func newView(out harness.Emitter, output func(string) string) *view {
	return &view{out: out, output: output, tools: map[string]*toolState{}, grown: make(chan struct{})}
}

// knownWait bounds how long a permission request waits for the tool call
// it names. The SDK hands notifications to one goroutine and requests to
// others, so a request can overtake the notification the agent sent just
// before it. Agents also announce a call twice: once when its block starts
// streaming (no input yet), then whole, with the input and the diff an edit
// makes; an approval built between the two would show the operator neither.
// A call that truly has no input costs this wait once.
const knownWait = 2 * time.Second

// await waits until the tool call id is known with its input, for at most
// knownWait.
func (v *view) await(ctx context.Context, id string) {
	timer := time.NewTimer(knownWait)
	defer timer.Stop()
	for {
		v.mu.Lock()
		t, ok := v.tools[id]
		whole := ok && (t.input != nil || len(t.content) > 0)
		grown := v.grown
		v.mu.Unlock()
		if whole {
			return
		}
		select {
		case <-grown:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (v *view) text(s string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s != "" {
		v.out.Text(s)
	}
}

func (v *view) reasoning(s string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s != "" {
		v.out.Reasoning(s)
	}
}

func (v *view) notice(s string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.out.Notice(s)
}

func (v *view) usage(u sessions.Usage) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.out.Usage(u)
}

// update applies one session/update notification.
func (v *view) update(u acpsdk.SessionUpdate) {
	switch {
	case u.AgentMessageChunk != nil:
		v.text(blockText(u.AgentMessageChunk.Content))
	case u.AgentThoughtChunk != nil:
		v.reasoning(blockText(u.AgentThoughtChunk.Content))
	case u.ToolCall != nil:
		tc := u.ToolCall
		upd := acpsdk.ToolCallUpdate{ToolCallId: tc.ToolCallId, Title: &tc.Title, Content: tc.Content,
			Locations: tc.Locations, RawInput: tc.RawInput, RawOutput: tc.RawOutput}
		if tc.Kind != "" {
			upd.Kind = &tc.Kind
		}
		if tc.Status != "" {
			upd.Status = &tc.Status
		}
		v.toolUpdate(upd)
	case u.ToolCallUpdate != nil:
		tc := u.ToolCallUpdate
		v.toolUpdate(acpsdk.ToolCallUpdate{ToolCallId: tc.ToolCallId, Title: tc.Title, Kind: tc.Kind, Content: tc.Content,
			Locations: tc.Locations, RawInput: tc.RawInput, RawOutput: tc.RawOutput, Status: tc.Status})
	}
}

// toolUpdate merges what the agent says of a tool call into its part: the
// part opens at the first mention, with the call's title and input; a
// final status gives it its result.
func (v *view) toolUpdate(u acpsdk.ToolCallUpdate) *toolState {
	v.mu.Lock()
	defer v.mu.Unlock()
	id := string(u.ToolCallId)
	t := v.tools[id]
	if t == nil {
		t = &toolState{name: "tool"}
		v.tools[id] = t
		v.order = append(v.order, id)
	}
	// Wake any permission request waiting for this call (await).
	close(v.grown)
	v.grown = make(chan struct{})
	if u.Kind != nil && *u.Kind != "" {
		t.kind = *u.Kind
		if !t.started {
			t.name = string(*u.Kind)
		}
	}
	if u.Title != nil && *u.Title != "" {
		t.title = *u.Title
	}
	if present(u.RawInput) {
		t.input = u.RawInput
	}
	if len(u.Locations) > 0 {
		t.locs = paths(u.Locations)
	}
	if u.Content != nil {
		t.content = u.Content // an update's content replaces the call's
	}
	if u.RawOutput != nil {
		t.raw = u.RawOutput
	}
	// Agents often announce a call before its input has streamed: the part
	// opens once the input is there, or the call asks or ends.
	final := u.Status != nil && (*u.Status == acpsdk.ToolCallStatusCompleted || *u.Status == acpsdk.ToolCallStatusFailed)
	if t.input != nil || final || len(t.content) > 0 {
		v.startLocked(id, t)
	}
	if u.Status != nil && !t.done {
		switch {
		case final && (v.cancelled || v.turn != nil && v.turn.Err() != nil) && t.denied == "":
			t.done = true
			text := v.resultText(t)
			if text == "" {
				text = "interrupted"
			}
			v.out.ToolResult(id, text, sessions.ToolInterrupted)
			return t
		}
		switch *u.Status {
		case acpsdk.ToolCallStatusCompleted:
			t.done = true
			v.out.ToolResult(id, v.resultText(t), sessions.ToolDone)
		case acpsdk.ToolCallStatusFailed:
			t.done = true
			state, text := sessions.ToolError, v.resultText(t)
			if t.denied != "" {
				state, text = sessions.ToolDenied, t.denied
			}
			v.out.ToolResult(id, text, state)
		}
	}
	return t
}

// startLocked opens the call's part with its title and input.
func (v *view) startLocked(id string, t *toolState) {
	if t.started {
		return
	}
	t.started = true
	b, _ := json.Marshal(map[string]any{"title": t.title, "input": t.input, "locations": t.locs})
	v.out.ToolStart(id, t.name)
	v.out.ToolInput(id, string(b))
}

// deny marks a call the operator denied, so its failure shows as a denial.
func (v *view) deny(id, why string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if t := v.tools[id]; t != nil {
		t.denied = why
	}
}

// closeOpen gives every part still open a result, so none dangles.
func (v *view) closeOpen(text string, state sessions.ToolState) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, id := range v.order {
		if t := v.tools[id]; !t.done {
			v.startLocked(id, t)
			t.done = true
			out := text
			if t.denied != "" && state != sessions.ToolInterrupted {
				out, state = t.denied, sessions.ToolDenied
			}
			v.out.ToolResult(id, out, state)
		}
	}
}

// resultText is a finished call's output: its text content, its diffs,
// the output of its terminals, or else its raw output.
func (v *view) resultText(t *toolState) string {
	var parts []string
	for _, c := range t.content {
		switch {
		case c.Content != nil:
			if s := blockText(c.Content.Content); s != "" {
				parts = append(parts, s)
			}
		case c.Diff != nil:
			parts = append(parts, diffText(c.Diff))
		case c.Terminal != nil && v.output != nil:
			parts = append(parts, v.output(c.Terminal.TerminalId))
		}
	}
	if len(parts) == 0 && t.raw != nil {
		if s, ok := t.raw.(string); ok {
			return s
		}
		b, _ := json.Marshal(t.raw)
		return string(b)
	}
	return strings.Join(parts, "\n")
}

// approval describes a permission request for the operator.
func (v *view) approval(u acpsdk.ToolCallUpdate) harness.ApprovalRequest {
	t := v.toolUpdate(u)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.startLocked(string(u.ToolCallId), t)
	req := harness.ApprovalRequest{ToolCall: string(u.ToolCallId), Tool: t.name, Kind: actionOf(t.kind), Reason: t.title}
	in, _ := t.input.(map[string]any)
	if s, ok := in["command"].(string); ok {
		req.Command = s
		if args, ok := in["args"].([]any); ok {
			for _, a := range args {
				req.Command += " " + fmt.Sprint(a)
			}
		}
	}
	for _, k := range []string{"file_path", "path", "abs_path", "filePath"} {
		if s, ok := in[k].(string); ok && req.Path == "" {
			req.Path = s
		}
	}
	if req.Path == "" && len(t.locs) > 0 {
		req.Path = t.locs[0]
	}
	var diffs []string
	for _, c := range t.content {
		if c.Diff != nil {
			diffs = append(diffs, diffText(c.Diff))
			if req.Path == "" {
				req.Path = c.Diff.Path
			}
		}
	}
	req.Diff = strings.Join(diffs, "")
	return req
}

// present reports whether a raw input says something: not absent, null or
// an empty object.
func present(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case map[string]any:
		return len(x) > 0
	}
	return true
}

func paths(ls []acpsdk.ToolCallLocation) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Path)
	}
	return out
}

// blockText is the text of a content block; other kinds show as a marker.
func blockText(b acpsdk.ContentBlock) string {
	switch {
	case b.Text != nil:
		return b.Text.Text
	case b.ResourceLink != nil:
		return "[" + b.ResourceLink.Uri + "]"
	case b.Image != nil:
		return "[image]"
	case b.Audio != nil:
		return "[audio]"
	}
	return ""
}

// diffText shows an ACP diff (old and new text of a file) as a unified
// diff of the whole file: one hunk, enough for the operator to read.
func diffText(d *acpsdk.ToolCallContentDiff) string {
	var b strings.Builder
	oldLines := splitLines(d.OldText)
	newLines := splitLines(&d.NewText)
	if d.OldText == nil {
		fmt.Fprintf(&b, "--- /dev/null\n+++ %s\n", d.Path)
	} else {
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", d.Path, d.Path)
	}
	// Keep the common head and tail out of the hunk.
	head := 0
	for head < len(oldLines) && head < len(newLines) && oldLines[head] == newLines[head] {
		head++
	}
	tail := 0
	for tail < len(oldLines)-head && tail < len(newLines)-head &&
		oldLines[len(oldLines)-1-tail] == newLines[len(newLines)-1-tail] {
		tail++
	}
	o, n := oldLines[head:len(oldLines)-tail], newLines[head:len(newLines)-tail]
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", head+1, len(o), head+1, len(n))
	for _, l := range o {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range n {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

func splitLines(s *string) []string {
	if s == nil || *s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(*s, "\n"), "\n")
}

// cancel marks the turn as being cancelled (see view.cancelled).
func (v *view) cancel() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.cancelled = true
}

// actionOf classes an ACP tool kind for the engine's approval policy;
// "other", "switch_mode" and kinds added later are left unknown.
func actionOf(k acpsdk.ToolKind) harness.ActionKind {
	switch k {
	case acpsdk.ToolKindRead, acpsdk.ToolKindSearch, acpsdk.ToolKindFetch, acpsdk.ToolKindThink:
		return harness.ActionRead
	case acpsdk.ToolKindEdit, acpsdk.ToolKindDelete, acpsdk.ToolKindMove:
		return harness.ActionWrite
	case acpsdk.ToolKindExecute:
		return harness.ActionExec
	}
	return harness.ActionUnknown
}
