package claude

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// decoder turns the CLI's transcript lines (stream_event, assistant, user,
// system) into Emitter calls for one turn. It owns no process and does no
// I/O, so recorded streams replay through it directly.
//
// With --include-partial-messages the CLI sends every block twice: as
// stream_event deltas, then whole in an assistant line (one line per
// block, in block order, sharing the message id). Deltas go out at once;
// an assistant line is emitted only for a block that was not streamed (no
// partial messages, a synthetic error message), counted per message id.
type decoder struct {
	out harness.Emitter

	streamed map[string]int     // message id → blocks begun through stream_event
	whole    map[string]int     // message id → assistant lines seen
	curMsg   string             // message being streamed
	blockTo  map[int]string     // content block index → tool id, in curMsg
	started  map[string]bool    // tool ids opened this turn
	open     []string           // tool ids opened and not yet given a result
	denied   map[string]bool    // tool ids the operator denied
	notices  []string           // synthetic API error texts, for the turn's error
	stopHint harness.StopReason // from message_delta stop_reason
	// authFailed marks a synthetic error line of kind
	// authentication_failed: the CLI has no valid login or key.
	authFailed bool

	// interrupting marks that we asked the CLI to stop: a failed tool
	// result after that is an interruption, not an error.
	interrupting bool
}

func newDecoder(out harness.Emitter) *decoder {
	return &decoder{out: out, streamed: map[string]int{}, whole: map[string]int{},
		blockTo: map[int]string{}, started: map[string]bool{}, denied: map[string]bool{}}
}

// handle applies one transcript line. Lines of a sub-agent (the Task tool)
// are skipped: their text would interleave with the agent's own, and their
// tool calls belong to the Task call that is already shown.
func (d *decoder) handle(l line) error {
	if l.ParentToolUseID != nil && *l.ParentToolUseID != "" {
		return nil
	}
	switch l.Type {
	case "stream_event":
		return d.streamEvent(l.Event)
	case "assistant":
		return d.assistant(l)
	case "user":
		if l.IsReplay {
			return nil
		}
		return d.user(l.Message)
	case "system":
		d.system(l)
	case "rate_limit_event":
		if i := l.RateLimitInfo; i != nil && i.Status != "" && i.Status != "allowed" {
			d.out.Notice(strings.TrimSpace("rate limit " + strings.ReplaceAll(i.Status, "_", " ") + " " + i.RateLimitType))
		}
	}
	return nil
}

func (d *decoder) streamEvent(raw json.RawMessage) error {
	var ev streamEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return fmt.Errorf("stream_event: %w", err)
	}
	switch ev.Type {
	case "message_start":
		if ev.Message == nil {
			return fmt.Errorf("stream_event: message_start without a message")
		}
		d.curMsg = ev.Message.ID
		clear(d.blockTo)
	case "content_block_start":
		if ev.ContentBlock == nil {
			return fmt.Errorf("stream_event: content_block_start without a block")
		}
		d.streamed[d.curMsg]++
		if b := ev.ContentBlock; b.Type == "tool_use" {
			if b.ID == "" {
				return fmt.Errorf("stream_event: tool_use block without an id")
			}
			d.blockTo[ev.Index] = b.ID
			d.toolStart(b.ID, b.Name)
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			d.out.Text(ev.Delta.Text)
		case "thinking_delta":
			d.out.Reasoning(ev.Delta.Thinking)
		case "input_json_delta":
			if id, ok := d.blockTo[ev.Index]; ok && ev.Delta.PartialJSON != "" {
				d.out.ToolInput(id, ev.Delta.PartialJSON)
			}
		}
	case "message_delta":
		var md struct {
			Delta struct {
				StopReason string `json:"stop_reason"`
			} `json:"delta"`
		}
		if json.Unmarshal(raw, &md) == nil && md.Delta.StopReason == "max_tokens" {
			d.stopHint = harness.StopMaxTokens
		}
	}
	return nil
}

func (d *decoder) toolStart(id, name string) {
	if d.started[id] {
		return
	}
	d.started[id] = true
	d.open = append(d.open, id)
	d.out.ToolStart(id, name)
}

// assistant emits the blocks of a whole assistant line that were not
// streamed before it.
func (d *decoder) assistant(l line) error {
	var m message
	if err := json.Unmarshal(l.Message, &m); err != nil {
		return fmt.Errorf("assistant: %w", err)
	}
	bs, err := blocks(m.Content)
	if err != nil {
		return fmt.Errorf("assistant content: %w", err)
	}
	if l.Error != "" || m.Model == "<synthetic>" {
		// An API failure the CLI reports as a message: a notice now,
		// and the text for the turn's error if the result says it failed.
		if l.Error == "authentication_failed" {
			d.authFailed = true
		}
		for _, b := range bs {
			if b.Type == "text" && b.Text != "" {
				d.out.Notice(b.Text)
				d.notices = append(d.notices, b.Text)
			}
		}
		return nil
	}
	for _, b := range bs {
		d.whole[m.ID]++
		if m.ID != "" && d.whole[m.ID] <= d.streamed[m.ID] {
			if b.Type == "tool_use" && b.ID != "" && !d.started[b.ID] {
				// Streamed, but its start was missed: open it whole.
				d.toolStart(b.ID, b.Name)
				d.toolInput(b.ID, b.Input)
			}
			continue
		}
		switch b.Type {
		case "text":
			if b.Text != "" {
				d.out.Text(b.Text)
			}
		case "thinking":
			if b.Thinking != "" {
				d.out.Reasoning(b.Thinking)
			}
		case "tool_use":
			if b.ID == "" {
				return fmt.Errorf("assistant: tool_use block without an id")
			}
			if !d.started[b.ID] {
				d.toolStart(b.ID, b.Name)
				d.toolInput(b.ID, b.Input)
			}
		}
	}
	return nil
}

func (d *decoder) toolInput(id string, input json.RawMessage) {
	if len(input) > 0 && string(input) != "null" {
		d.out.ToolInput(id, string(input))
	}
}

// user emits the tool results in a user line. Its text blocks ("[Request
// interrupted by user]") are the CLI's own bookkeeping, not output.
func (d *decoder) user(raw json.RawMessage) error {
	var m message
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("user: %w", err)
	}
	bs, err := blocks(m.Content)
	if err != nil {
		return fmt.Errorf("user content: %w", err)
	}
	for _, b := range bs {
		if b.Type != "tool_result" || !d.isOpen(b.ToolUseID) {
			continue
		}
		state := sessions.ToolDone
		switch {
		case !b.IsError:
		case d.denied[b.ToolUseID]:
			state = sessions.ToolDenied
		case d.interrupting:
			state = sessions.ToolInterrupted
		default:
			state = sessions.ToolError
		}
		d.result(b.ToolUseID, resultText(b.Content), state)
	}
	return nil
}

func (d *decoder) isOpen(id string) bool {
	for _, o := range d.open {
		if o == id {
			return true
		}
	}
	return false
}

func (d *decoder) result(id, output string, state sessions.ToolState) {
	for i, o := range d.open {
		if o == id {
			d.open = append(d.open[:i], d.open[i+1:]...)
			break
		}
	}
	d.out.ToolResult(id, output, state)
}

// closeOpen gives every tool call still open an interrupted result, so no
// call is left dangling whatever ended the turn.
func (d *decoder) closeOpen(why string) {
	for len(d.open) > 0 {
		d.result(d.open[0], why, sessions.ToolInterrupted)
	}
}

func (d *decoder) system(l line) {
	switch l.Subtype {
	case "api_retry":
		what := l.ErrorText
		if l.ErrorStatus != 0 {
			what = strings.TrimSpace(fmt.Sprintf("%d %s", l.ErrorStatus, what))
		}
		if what == "" {
			what = "API error"
		}
		d.out.Notice(fmt.Sprintf("retrying (%d/%d) in %.1fs: %s", l.Attempt, l.MaxRetries, l.RetryDelayMS/1000, what))
	case "compact_boundary":
		d.out.Notice("the agent compacted its conversation")
	}
}
