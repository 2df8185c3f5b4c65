package openai

import (
	"context"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modelkit"
	"github.com/atelier-studio/atelier/sessions"
)

const responsesOp = "openai responses"

// responsesParams builds the Responses request. The conversation is sent in
// full with store=false (as Codex does), so no state lives on the server:
// messages as input items, each tool call as a function_call item followed
// by its function_call_output.
func (m *Model) responsesParams(model string, req harness.StepRequest, ts []modelkit.Turn) responses.ResponseNewParams {
	var items responses.ResponseInputParam
	for _, t := range ts {
		if t.Role == sessions.User {
			items = append(items, responses.ResponseInputItemParamOfMessage(t.Text, responses.EasyInputMessageRoleUser))
			continue
		}
		if t.Text != "" {
			items = append(items, responses.ResponseInputItemParamOfMessage(t.Text, responses.EasyInputMessageRoleAssistant))
		}
		for _, c := range t.Calls {
			items = append(items, responses.ResponseInputItemParamOfFunctionCall(c.Input, c.ID, c.Name))
		}
		for _, c := range t.Calls {
			items = append(items, responses.ResponseInputItemParamOfFunctionCallOutput(c.Result))
			items[len(items)-1].OfFunctionCallOutput.CallID = oai.String(c.ID)
		}
	}
	p := responses.ResponseNewParams{
		Model: shared.ResponsesModel(model),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: items},
		Store: oai.Bool(false),
	}
	if req.Instructions != "" {
		p.Instructions = oai.String(req.Instructions)
	}
	for _, t := range req.Tools {
		fn := &responses.FunctionToolParam{Name: t.Name, Parameters: schema(t.Schema), Strict: oai.Bool(false)}
		if t.Description != "" {
			fn.Description = oai.String(t.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: fn})
	}
	if m.s.MaxTokens > 0 {
		p.MaxOutputTokens = oai.Int(m.s.MaxTokens)
	}
	if m.s.ReasoningEffort != "" {
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(m.s.ReasoningEffort), Summary: shared.ReasoningSummaryAuto}
	}
	return p
}

// responsesAttempt streams one Responses call.
func (m *Model) responsesAttempt(ctx context.Context, p responses.ResponseNewParams, out harness.Emitter) (harness.StepResult, error) {
	stream := m.resp.NewStreaming(ctx, p)
	// The stream's failure is stream.Err's; closing only frees the
	// connection.
	defer func() { _ = stream.Close() }()
	acc := responsesStream{out: out, byItem: map[string]*pendingCall{}, summary: map[string]int64{}}
	for stream.Next() {
		if err := acc.add(stream.Current()); err != nil {
			return harness.StepResult{}, err
		}
		if acc.done {
			break
		}
	}
	if err := stream.Err(); err != nil {
		return harness.StepResult{}, classify(ctx, responsesOp, err)
	}
	if err := ctx.Err(); err != nil {
		return harness.StepResult{}, err
	}
	return acc.result()
}

// responsesStream gathers one streamed response.
type responsesStream struct {
	out     harness.Emitter
	calls   []*pendingCall
	byItem  map[string]*pendingCall
	summary map[string]int64 // reasoning item → last summary index seen
	done    bool
	stop    harness.StopReason
	usage   sessions.Usage
}

func (a *responsesStream) add(ev responses.ResponseStreamEventUnion) error {
	switch ev.Type {
	case "response.output_item.added", "response.output_item.done":
		if ev.Item.Type != "function_call" {
			return nil
		}
		p := a.byItem[ev.Item.ID]
		if p == nil {
			p = &pendingCall{id: ev.Item.CallID, name: ev.Item.Name}
			a.byItem[ev.Item.ID] = p
			a.calls = append(a.calls, p)
			p.start(a.out)
		}
		if args := ev.Item.Arguments.OfString; args != "" {
			a.setArgs(p, args)
		}
	case "response.function_call_arguments.delta":
		if p := a.byItem[ev.ItemID]; p != nil {
			p.appendArgs(a.out, ev.Delta)
		}
	case "response.function_call_arguments.done":
		if p := a.byItem[ev.ItemID]; p != nil {
			a.setArgs(p, ev.Arguments)
		}
	case "response.output_text.delta", "response.refusal.delta":
		a.out.Text(ev.Delta)
	case "response.reasoning_summary_text.delta":
		if last, ok := a.summary[ev.ItemID]; ok && last != ev.SummaryIndex {
			a.out.Reasoning("\n\n")
		}
		a.summary[ev.ItemID] = ev.SummaryIndex
		a.out.Reasoning(ev.Delta)
	case "response.reasoning_text.delta":
		a.out.Reasoning(ev.Delta)
	case "response.completed", "response.incomplete":
		a.done = true
		u := ev.Response.Usage
		a.usage = sessions.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
		a.stop = harness.StopEnd
		if ev.Type == "response.incomplete" && ev.Response.IncompleteDetails.Reason == "max_output_tokens" {
			a.stop = harness.StopMaxTokens
		}
	case "response.failed":
		e := ev.Response.Error
		return apiErrorBody{Message: e.Message, Code: string(e.Code)}.err(responsesOp + ": response failed")
	case "error":
		return apiErrorBody{Message: ev.Message, Code: ev.Code}.err(responsesOp + ": stream error")
	}
	return nil
}

// setArgs takes the complete arguments a done event carries; they win over
// the fragments, which a proxy may have mangled or left out.
func (a *responsesStream) setArgs(p *pendingCall, args string) {
	if p.args.String() == args {
		return
	}
	if p.args.Len() == 0 {
		p.appendArgs(a.out, args)
		return
	}
	p.args.Reset()
	p.args.WriteString(args)
}

func (a *responsesStream) result() (harness.StepResult, error) {
	if !a.done {
		return harness.StepResult{}, fmt.Errorf("%s: %w: the stream ended before the response completed", responsesOp, ErrMalformed)
	}
	res := harness.StepResult{Stop: a.stop, Usage: a.usage}
	if a.usage != (sessions.Usage{}) {
		a.out.Usage(a.usage)
	}
	if a.stop == harness.StopMaxTokens {
		return res, nil
	}
	for _, p := range a.calls {
		tc, err := p.final(responsesOp)
		if err != nil {
			return harness.StepResult{}, err
		}
		res.ToolCalls = append(res.ToolCalls, tc)
	}
	if len(res.ToolCalls) > 0 {
		res.Stop = harness.StopToolUse
	}
	return res, nil
}
