package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modelkit"
	"github.com/atelier-studio/atelier/sessions"
)

const chatOp = "openai chat completions"

// chatParams builds the Chat Completions request: the instructions as the
// system message, then the conversation, with each assistant turn's tool
// calls followed by one tool message per result.
func (m *Model) chatParams(model string, req harness.StepRequest, ts []modelkit.Turn) oai.ChatCompletionNewParams {
	var msgs []oai.ChatCompletionMessageParamUnion
	if req.Instructions != "" {
		msgs = append(msgs, oai.SystemMessage(req.Instructions))
	}
	for _, t := range ts {
		if t.Role == sessions.User {
			msgs = append(msgs, oai.UserMessage(t.Text))
			continue
		}
		a := oai.ChatCompletionAssistantMessageParam{}
		if t.Text != "" {
			a.Content.OfString = oai.String(t.Text)
		}
		for _, c := range t.Calls {
			a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Input},
				},
			})
		}
		msgs = append(msgs, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		for _, c := range t.Calls {
			msgs = append(msgs, oai.ToolMessage(c.Result, c.ID))
		}
	}
	p := oai.ChatCompletionNewParams{
		Model:         shared.ChatModel(model),
		Messages:      msgs,
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema(t.Schema)}
		if t.Description != "" {
			fn.Description = oai.String(t.Description)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionToolUnionParam{OfFunction: &oai.ChatCompletionFunctionToolParam{Function: fn}})
	}
	if len(p.Tools) > 0 {
		p.ToolChoice.OfAuto = oai.String("auto")
	}
	if m.s.MaxTokens > 0 {
		if officialHost(m.s.BaseURL) {
			p.MaxCompletionTokens = oai.Int(m.s.MaxTokens)
		} else {
			p.MaxTokens = oai.Int(m.s.MaxTokens)
		}
	}
	if m.s.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(m.s.ReasoningEffort)
	}
	return p
}

// chatAttempt streams one Chat Completions call.
func (m *Model) chatAttempt(ctx context.Context, p oai.ChatCompletionNewParams, out harness.Emitter) (harness.StepResult, error) {
	stream := m.chat.NewStreaming(ctx, p)
	// The stream's failure is stream.Err's; closing only frees the
	// connection.
	defer func() { _ = stream.Close() }()
	acc := chatStream{out: out, byIndex: map[int64]*pendingCall{}}
	for stream.Next() {
		acc.add(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return harness.StepResult{}, classify(ctx, chatOp, err)
	}
	if err := ctx.Err(); err != nil {
		return harness.StepResult{}, err
	}
	return acc.result()
}

// chatStream gathers one streamed completion. Only the first choice counts.
type chatStream struct {
	out      harness.Emitter
	calls    []*pendingCall
	byIndex  map[int64]*pendingCall
	finish   string
	usage    sessions.Usage
	hasUsage bool
}

func (a *chatStream) add(c oai.ChatCompletionChunk) {
	if c.JSON.Usage.Valid() {
		a.usage = sessions.Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens, CostUSD: extraFloat(c.Usage.JSON.ExtraFields, "cost")}
		a.hasUsage = true
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		d := ch.Delta
		if r := reasoningDelta(d); r != "" {
			a.out.Reasoning(r)
		}
		if d.Content != "" {
			a.out.Text(d.Content)
		}
		if d.Refusal != "" {
			a.out.Text(d.Refusal)
		}
		for j, tc := range d.ToolCalls {
			a.addCall(j, tc)
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
		}
	}
}

// addCall merges a tool call fragment: keyed by index (by position when a
// server leaves the index out), its id and name from the first fragment that
// has them. A fragment with a new id, or a name but no id, at a used index
// is a new call: some proxies send every parallel call at index 0.
func (a *chatStream) addCall(pos int, tc oai.ChatCompletionChunkChoiceDeltaToolCall) {
	idx := tc.Index
	if !tc.JSON.Index.Valid() {
		idx = int64(pos)
	}
	p := a.byIndex[idx]
	newID := tc.ID != "" && p != nil && p.id != "" && tc.ID != p.id
	renamed := tc.ID == "" && tc.Function.Name != "" && p != nil && p.name != ""
	if p == nil || newID || renamed {
		p = &pendingCall{}
		a.calls = append(a.calls, p)
		a.byIndex[idx] = p
	}
	if p.id == "" && tc.ID != "" {
		p.id = tc.ID
	}
	if p.name == "" && tc.Function.Name != "" {
		p.name = tc.Function.Name
	}
	args := tc.Function.Arguments
	if f := tc.Function.JSON.Arguments; !f.Valid() && len(f.Raw()) > 0 && f.Raw()[0] == '{' {
		args = f.Raw() // arguments sent as an object, not a string
	}
	p.start(a.out)
	p.appendArgs(a.out, args)
}

func (a *chatStream) result() (harness.StepResult, error) {
	if a.finish == "" {
		return harness.StepResult{}, fmt.Errorf("%s: %w: the stream ended before the model finished", chatOp, ErrMalformed)
	}
	res := harness.StepResult{Stop: harness.StopEnd}
	if a.hasUsage {
		res.Usage = a.usage
		a.out.Usage(a.usage)
	}
	if a.finish == "length" {
		// A call cut off by the limit is half a call: none is returned.
		res.Stop = harness.StopMaxTokens
		return res, nil
	}
	if a.finish == "content_filter" {
		a.out.Notice("the server's content filter stopped the reply")
	}
	for _, p := range a.calls {
		tc, err := p.final(chatOp)
		if err != nil {
			return harness.StepResult{}, err
		}
		res.ToolCalls = append(res.ToolCalls, tc)
	}
	if len(res.ToolCalls) > 0 {
		// Whatever finish_reason said: some servers say "stop" with calls.
		res.Stop = harness.StopToolUse
	}
	return res, nil
}

// reasoningDelta reads the reasoning text that compatible servers put in
// delta.reasoning_content (vLLM, llama.cpp, DeepSeek) or delta.reasoning
// (newer vLLM, Ollama, OpenRouter); the first non-empty one wins, since some
// servers send both.
func reasoningDelta(d oai.ChatCompletionChunkChoiceDelta) string {
	for _, k := range []string{"reasoning_content", "reasoning"} {
		f, ok := d.JSON.ExtraFields[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func extraFloat(fields map[string]respjson.Field, key string) float64 {
	f, ok := fields[key]
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(f.Raw(), 64)
	if err != nil {
		return 0
	}
	return v
}
