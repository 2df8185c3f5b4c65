package anthropic

import (
	"encoding/json"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modelkit"
	"github.com/atelier-studio/atelier/sessions"
)

// params builds the Messages request. dropped is true when thinking is
// configured but off for this step, because the assistant message whose
// tool results are being sent lacks the signed thinking the API wants back.
func (m *Model) params(model string, req harness.StepRequest) (p sdk.MessageNewParams, dropped bool) {
	think := m.s.ThinkingBudget > 0
	msgs := m.messages(modelkit.Turns(req.History), think)
	if think && !lastAssistantThinks(msgs) {
		think, dropped = false, true
		msgs = m.messages(modelkit.Turns(req.History), false)
	}
	p = sdk.MessageNewParams{Model: sdk.Model(model), MaxTokens: m.s.MaxTokens, Messages: msgs}
	if req.Instructions != "" {
		p.System = []sdk.TextBlockParam{{Text: req.Instructions}}
	}
	if think {
		p.Thinking = sdk.ThinkingConfigParamOfEnabled(m.s.ThinkingBudget)
	}
	for _, t := range req.Tools {
		tp := &sdk.ToolParam{Name: t.Name, InputSchema: inputSchema(t.Schema)}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	return p, dropped
}

// messages converts the turns: an assistant turn becomes its thinking (when
// on and known), text and tool_use blocks, followed by a user message of
// tool_result blocks; consecutive messages of one role are merged, as the
// API wants roles to alternate.
func (m *Model) messages(ts []modelkit.Turn, think bool) []sdk.MessageParam {
	var out []sdk.MessageParam
	add := func(role sdk.MessageParamRole, blocks ...sdk.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, sdk.MessageParam{Role: role, Content: blocks})
	}
	for _, t := range ts {
		if t.Role == sessions.User {
			add(sdk.MessageParamRoleUser, sdk.NewTextBlock(t.Text))
			continue
		}
		var blocks, results []sdk.ContentBlockParamUnion
		if think && len(t.Calls) > 0 {
			if th := thoughtBlocks(t.Thinking); len(th) > 0 {
				// Kept in the transcript: it survives a restart.
				blocks = append(blocks, th...)
			} else {
				ids := make([]string, len(t.Calls))
				for i, c := range t.Calls {
					ids[i] = c.ID
				}
				blocks = append(blocks, m.thinking.get(ids)...)
			}
		}
		if strings.TrimSpace(t.Text) != "" {
			blocks = append(blocks, sdk.NewTextBlock(t.Text))
		}
		for _, c := range t.Calls {
			id := toolID(c.ID)
			blocks = append(blocks, sdk.NewToolUseBlock(id, toolInput(c.Input), c.Name))
			results = append(results, sdk.NewToolResultBlock(id, c.Result, c.Failed))
		}
		add(sdk.MessageParamRoleAssistant, blocks...)
		add(sdk.MessageParamRoleUser, results...)
	}
	return out
}

// lastAssistantThinks reports whether the last assistant message, if it
// made tool calls, starts with a thinking block, as the API requires when
// thinking is on.
func lastAssistantThinks(msgs []sdk.MessageParam) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != sdk.MessageParamRoleAssistant {
			continue
		}
		hasTool := false
		for _, b := range msgs[i].Content {
			if b.OfToolUse != nil {
				hasTool = true
			}
		}
		if !hasTool {
			return true
		}
		first := msgs[i].Content[0]
		return first.OfThinking != nil || first.OfRedactedThinking != nil
	}
	return true
}

// toolInput is a call's input as the API wants it: a JSON object. Input
// that is not one (a transcript written by another model) is sent empty.
func toolInput(s string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// toolID makes an id the API accepts (letters, digits, _ and -): ids made
// by other providers may hold other characters.
func toolID(id string) string {
	if id == "" {
		return "toolu_unknown"
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, id)
}

// inputSchema splits a tool's JSON schema into the SDK's fields.
func inputSchema(raw json.RawMessage) sdk.ToolInputSchemaParam {
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil || s == nil {
		return sdk.ToolInputSchemaParam{Properties: map[string]any{}}
	}
	out := sdk.ToolInputSchemaParam{Properties: s["properties"], ExtraFields: map[string]any{}}
	if out.Properties == nil {
		out.Properties = map[string]any{}
	}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				out.Required = append(out.Required, name)
			}
		}
	}
	for k, v := range s {
		if k != "type" && k != "properties" && k != "required" {
			out.ExtraFields[k] = v
		}
	}
	return out
}

// thoughtBlocks turns the transcript's signed thinking back into blocks.
func thoughtBlocks(ts []modelkit.Thought) []sdk.ContentBlockParamUnion {
	var out []sdk.ContentBlockParamUnion
	for _, t := range ts {
		switch {
		case t.Redacted != "":
			out = append(out, sdk.NewRedactedThinkingBlock(t.Redacted))
		case t.Signature != "":
			out = append(out, sdk.NewThinkingBlock(t.Signature, t.Text))
		}
	}
	return out
}
