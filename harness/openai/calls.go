package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atelier-studio/atelier/harness"
)

// pendingCall is a tool call being streamed. It is announced to the Emitter
// once its name is known (arguments that came earlier are replayed then),
// and becomes a harness.ToolCall only when the stream completes.
type pendingCall struct {
	id, name string
	args     strings.Builder
	started  bool
}

// start announces the call once it has a name; a call with no id gets one.
func (p *pendingCall) start(out harness.Emitter) {
	if p.started || p.name == "" {
		return
	}
	if p.id == "" {
		p.id = newCallID()
	}
	p.started = true
	out.ToolStart(p.id, p.name)
	if p.args.Len() > 0 {
		out.ToolInput(p.id, p.args.String())
	}
}

// appendArgs adds an argument fragment and streams it if the call started.
func (p *pendingCall) appendArgs(out harness.Emitter, frag string) {
	if frag == "" {
		return
	}
	p.args.WriteString(frag)
	if p.started {
		out.ToolInput(p.id, frag)
	}
}

// final checks the finished call: it must have a name, and its arguments
// must be JSON (empty arguments mean none: {}).
func (p *pendingCall) final(op string) (harness.ToolCall, error) {
	if p.name == "" {
		return harness.ToolCall{}, fmt.Errorf("%s: %w: a tool call has no name", op, ErrMalformed)
	}
	args := strings.TrimSpace(p.args.String())
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return harness.ToolCall{}, fmt.Errorf("%s: %w: tool call %s (%s): arguments are not valid JSON: %s",
			op, ErrMalformed, p.id, p.name, harness.Clip(args, 200))
	}
	return harness.ToolCall{ID: p.id, Name: p.name, Input: json.RawMessage(args)}, nil
}
