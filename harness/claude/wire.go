package claude

import (
	"encoding/json"
	"strings"
)

// line is one NDJSON object the CLI prints on stdout. Only the fields the
// adapter reads are decoded; everything else (and every type it does not
// know) is tolerated, since the CLI adds types and fields between releases.
type line struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	// ParentToolUseID is set on output of a sub-agent (the Task tool).
	ParentToolUseID *string `json:"parent_tool_use_id"`
	// IsReplay marks the echo of a user message we wrote
	// (--replay-user-messages): the CLI has taken it.
	IsReplay bool `json:"isReplay"`

	Event   json.RawMessage `json:"event"`   // stream_event
	Message json.RawMessage `json:"message"` // assistant, user
	// Error is set on a synthetic assistant line that reports an API
	// failure (authentication_failed, rate_limit, server_error...).
	Error string `json:"error"`

	RequestID string          `json:"request_id"` // control_request, control_cancel_request
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"` // control_response

	// system/api_retry
	Attempt      int     `json:"attempt"`
	MaxRetries   int     `json:"max_retries"`
	RetryDelayMS float64 `json:"retry_delay_ms"`
	ErrorStatus  int     `json:"error_status"`
	ErrorText    string  `json:"-"`

	// result
	IsError        bool     `json:"is_error"`
	APIErrorStatus *int     `json:"api_error_status"`
	Result         string   `json:"result"`
	StopReason     string   `json:"stop_reason"`
	TotalCostUSD   float64  `json:"total_cost_usd"`
	Usage          usage    `json:"usage"`
	Errors         []string `json:"errors"`
	TerminalReason string   `json:"terminal_reason"`

	// rate_limit_event
	RateLimitInfo *rateLimitInfo `json:"rate_limit_info"`
}

// decodeLine parses one stdout line. The api_retry "error" field shares its
// name with the assistant line's, so it is read separately.
func decodeLine(b []byte) (line, error) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return l, err
	}
	if l.Type == "system" && l.Subtype == "api_retry" {
		l.ErrorText, l.Error = l.Error, ""
	}
	return l, nil
}

type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

type rateLimitInfo struct {
	Status        string `json:"status"`
	RateLimitType string `json:"rate_limit_type"`
}

// message is the Anthropic message inside an assistant or user line.
type message struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"` // a string or an array of blocks
}

// block is one content block of a message.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // tool_result: a string or blocks
	IsError   bool            `json:"is_error"`
}

// blocks decodes a content field that is either a string (one text block)
// or an array of blocks.
func blocks(raw json.RawMessage) ([]block, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []block{{Type: "text", Text: s}}, nil
	}
	var bs []block
	err := json.Unmarshal(raw, &bs)
	return bs, err
}

// resultText flattens a tool_result's content to the text shown in the
// transcript; images and other non-text blocks are named, not dropped
// silently.
func resultText(raw json.RawMessage) string {
	bs, err := blocks(raw)
	if err != nil {
		return string(raw)
	}
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		} else {
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, "\n")
}

// streamEvent is a raw Anthropic SSE event wrapped in a stream_event line.
type streamEvent struct {
	Type         string   `json:"type"`
	Index        int      `json:"index"`
	Message      *message `json:"message"`
	ContentBlock *block   `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
	} `json:"delta"`
}

// controlRequest is the body of a control_request the CLI sends us.
type controlRequest struct {
	Subtype        string          `json:"subtype"`
	ToolName       string          `json:"tool_name"`
	DisplayName    string          `json:"display_name"`
	Input          json.RawMessage `json:"input"`
	ToolUseID      string          `json:"tool_use_id"`
	BlockedPath    string          `json:"blocked_path"`
	Description    string          `json:"description"`
	Title          string          `json:"title"`
	DecisionReason string          `json:"decision_reason"`
}

// controlResponseBody is the body of a control_response the CLI sends us.
type controlResponseBody struct {
	Subtype   string          `json:"subtype"`
	RequestID string          `json:"request_id"`
	Error     string          `json:"error"`
	Response  json.RawMessage `json:"response"`
}

// userLine is a stream-json user message for the CLI's stdin.
type userLine struct {
	Type            string  `json:"type"`
	Message         userMsg `json:"message"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
}

type userMsg struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func newUserLine(text string) userLine {
	return userLine{Type: "user", Message: userMsg{Role: "user", Content: text}, SessionID: "default"}
}

// outControlRequest is a control_request we send the CLI.
type outControlRequest struct {
	Type      string         `json:"type"`
	RequestID string         `json:"request_id"`
	Request   map[string]any `json:"request"`
}

// outControlResponse answers a control_request of the CLI.
type outControlResponse struct {
	Type     string         `json:"type"`
	Response outResponseEnv `json:"response"`
}

type outResponseEnv struct {
	Subtype   string `json:"subtype"`
	RequestID string `json:"request_id"`
	Response  any    `json:"response,omitempty"`
	Error     string `json:"error,omitempty"`
}

// permissionAllow and permissionDeny are the can_use_tool answers. The
// original input is always echoed in updatedInput, as the SDKs do.
type permissionAllow struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput"`
}

type permissionDeny struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message"`
}
