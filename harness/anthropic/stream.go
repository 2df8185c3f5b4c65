package anthropic

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/sessions"
)

// block is one content block of the streamed message.
type block struct {
	kind      string // text, thinking, redacted_thinking, tool_use, or a kind we skip
	thinking  strings.Builder
	signature string
	data      string // redacted thinking
	call      *streamCall
	stopped   bool
}

// streamCall is a tool_use block being streamed; it becomes a
// harness.ToolCall only when its block stops.
type streamCall struct {
	id, name string
	input    strings.Builder
}

// messageStream gathers one streamed message.
type messageStream struct {
	out     harness.Emitter
	blocks  map[int64]*block
	order   []*block
	stop    sdk.StopReason
	input   int64
	output  int64
	started bool
	done    bool
}

func newMessageStream(out harness.Emitter) *messageStream {
	return &messageStream{out: out, blocks: map[int64]*block{}}
}

func (a *messageStream) add(ev sdk.MessageStreamEventUnion) error {
	switch ev.Type {
	case "message_start":
		a.started = true
		u := ev.Message.Usage
		a.input = u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
		a.output = u.OutputTokens
	case "content_block_start":
		return a.start(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		b := a.blocks[ev.Index]
		if b == nil || b.stopped {
			return fmt.Errorf("%s: %w: delta for block %d, which is not open", op, ErrMalformed, ev.Index)
		}
		a.delta(b, ev.Delta)
	case "content_block_stop":
		if b := a.blocks[ev.Index]; b != nil {
			b.stopped = true
			a.keepThinking(b)
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = ev.Delta.StopReason
		}
		u := ev.Usage
		if u.JSON.OutputTokens.Valid() {
			a.output = u.OutputTokens // cumulative
		}
		if u.JSON.InputTokens.Valid() {
			a.input = u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
		}
	case "message_stop":
		a.done = true
	}
	return nil
}

func (a *messageStream) start(i int64, cb sdk.ContentBlockStartEventContentBlockUnion) error {
	if _, dup := a.blocks[i]; dup {
		return fmt.Errorf("%s: %w: block %d started twice", op, ErrMalformed, i)
	}
	b := &block{kind: cb.Type}
	a.blocks[i] = b
	a.order = append(a.order, b)
	switch cb.Type {
	case "text":
		if cb.Text != "" {
			a.out.Text(cb.Text)
		}
	case "thinking":
		b.signature = cb.Signature
		if cb.Thinking != "" {
			b.thinking.WriteString(cb.Thinking)
			a.out.Reasoning(cb.Thinking)
		}
	case "redacted_thinking":
		b.data = cb.Data
	case "tool_use":
		id := cb.ID
		if id == "" {
			var r [12]byte
			_, _ = rand.Read(r[:])
			id = "toolu_" + hex.EncodeToString(r[:])
		}
		if cb.Name == "" {
			return fmt.Errorf("%s: %w: tool_use block %d has no name", op, ErrMalformed, i)
		}
		b.call = &streamCall{id: id, name: cb.Name}
		a.out.ToolStart(id, cb.Name)
	}
	return nil
}

func (a *messageStream) delta(b *block, d sdk.MessageStreamEventUnionDelta) {
	switch d.Type {
	case "text_delta":
		a.out.Text(d.Text)
	case "thinking_delta":
		b.thinking.WriteString(d.Thinking)
		a.out.Reasoning(d.Thinking)
	case "signature_delta":
		b.signature += d.Signature
	case "input_json_delta":
		if b.call != nil && d.PartialJSON != "" {
			b.call.input.WriteString(d.PartialJSON)
			a.out.ToolInput(b.call.id, d.PartialJSON)
		}
	}
}

func (a *messageStream) result() (harness.StepResult, error) {
	if !a.done && a.stop == "" {
		return harness.StepResult{}, fmt.Errorf("%s: %w: the stream ended before the message did", op, ErrMalformed)
	}
	usage := sessions.Usage{InputTokens: a.input, OutputTokens: a.output}
	a.out.Usage(usage)
	res := harness.StepResult{Stop: harness.StopEnd, Usage: usage}
	switch a.stop {
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		// A tool call cut off by the limit is half a call: none is returned.
		res.Stop = harness.StopMaxTokens
		return res, nil
	case sdk.StopReasonRefusal:
		a.out.Notice("the model declined to continue")
	}
	for _, b := range a.order {
		if b.call == nil {
			continue
		}
		if !b.stopped {
			return harness.StepResult{}, fmt.Errorf("%s: %w: tool call %s (%s) never finished", op, ErrMalformed, b.call.id, b.call.name)
		}
		in := strings.TrimSpace(b.call.input.String())
		if in == "" {
			in = "{}"
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &obj) != nil || obj == nil {
			return harness.StepResult{}, fmt.Errorf("%s: %w: tool call %s (%s): input is not a JSON object: %s", op, ErrMalformed, b.call.id, b.call.name, harness.Clip(in, 200))
		}
		res.ToolCalls = append(res.ToolCalls, harness.ToolCall{ID: b.call.id, Name: b.call.name, Input: json.RawMessage(in)})
	}
	if len(res.ToolCalls) > 0 {
		res.Stop = harness.StopToolUse
	}
	return res, nil
}

// thinkingBlocks returns the message's complete signed thinking blocks,
// ready to be sent back.
func (a *messageStream) thinkingBlocks() []sdk.ContentBlockParamUnion {
	var out []sdk.ContentBlockParamUnion
	for _, b := range a.order {
		switch {
		case b.kind == "thinking" && b.stopped && b.signature != "":
			out = append(out, sdk.NewThinkingBlock(b.signature, b.thinking.String()))
		case b.kind == "redacted_thinking" && b.stopped && b.data != "":
			out = append(out, sdk.NewRedactedThinkingBlock(b.data))
		}
	}
	return out
}

// keepThinking hands a finished thinking block's signature (or a redacted
// block) to an emitter that keeps them in the transcript.
func (a *messageStream) keepThinking(b *block) {
	s, ok := a.out.(harness.Signer)
	if !ok {
		return
	}
	switch {
	case b.kind == "thinking" && b.signature != "":
		s.SignReasoning(b.signature)
	case b.kind == "redacted_thinking" && b.data != "":
		s.RedactedReasoning(b.data)
	}
}
