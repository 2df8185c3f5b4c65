package codex

import "encoding/json"

// The app-server messages this adapter uses, after the JSON schema of
// codex-cli 0.171.0 (`codex app-server generate-json-schema`). Only the
// fields read or written here are declared.

type clientInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

type initializeParams struct {
	ClientInfo   clientInfo     `json:"clientInfo"`
	Capabilities initializeCaps `json:"capabilities"`
}

type initializeCaps struct {
	ExperimentalAPI    bool `json:"experimentalApi"`
	RequestAttestation bool `json:"requestAttestation"`
}

type initializeResponse struct {
	UserAgent string `json:"userAgent"`
}

type threadStartParams struct {
	Cwd                   string `json:"cwd"`
	ApprovalPolicy        string `json:"approvalPolicy"`
	Sandbox               string `json:"sandbox,omitempty"`
	Model                 string `json:"model,omitempty"`
	DeveloperInstructions string `json:"developerInstructions,omitempty"`
}

type threadResumeParams struct {
	ThreadID       string `json:"threadId"`
	Cwd            string `json:"cwd"`
	ApprovalPolicy string `json:"approvalPolicy"`
	Sandbox        string `json:"sandbox,omitempty"`
	Model          string `json:"model,omitempty"`
	ExcludeTurns   bool   `json:"excludeTurns"`
}

type thread struct {
	ID string `json:"id"`
}

// threadResponse answers thread/start and thread/resume.
type threadResponse struct {
	Thread thread `json:"thread"`
	Model  string `json:"model"`
}

type userInput struct {
	Type         string            `json:"type"`
	Text         string            `json:"text"`
	TextElements []json.RawMessage `json:"text_elements"`
}

func textInput(s string) []userInput {
	return []userInput{{Type: "text", Text: s, TextElements: []json.RawMessage{}}}
}

type turnStartParams struct {
	ThreadID string      `json:"threadId"`
	Input    []userInput `json:"input"`
	Model    string      `json:"model,omitempty"`
}

type turnSteerParams struct {
	ThreadID       string      `json:"threadId"`
	ExpectedTurnID string      `json:"expectedTurnId"`
	Input          []userInput `json:"input"`
}

type turnInterruptParams struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
}

type turn struct {
	ID     string     `json:"id"`
	Status string     `json:"status"` // completed, interrupted, failed, inProgress
	Error  *turnError `json:"error"`
}

type turnError struct {
	Message           string `json:"message"`
	AdditionalDetails string `json:"additionalDetails"`
	// CodexErrorInfo classifies the error: a string ("unauthorized",
	// "usageLimitExceeded"...) or an object such as
	// {"httpConnectionFailed":{"httpStatusCode":401}}.
	CodexErrorInfo json.RawMessage `json:"codexErrorInfo"`
}

// unauthorized reports whether the error is the model API refusing Codex's
// login or key: the "unauthorized" kind, or an HTTP 401.
func (e *turnError) unauthorized() bool {
	if e == nil || len(e.CodexErrorInfo) == 0 {
		return false
	}
	var kind string
	if json.Unmarshal(e.CodexErrorInfo, &kind) == nil {
		return kind == "unauthorized"
	}
	var obj map[string]struct {
		HTTPStatusCode *int `json:"httpStatusCode"`
	}
	if json.Unmarshal(e.CodexErrorInfo, &obj) != nil {
		return false
	}
	for _, v := range obj {
		if v.HTTPStatusCode != nil && *v.HTTPStatusCode == 401 {
			return true
		}
	}
	return false
}

// turnResponse answers turn/start; turnNotification is turn/started and
// turn/completed.
type turnResponse struct {
	Turn turn `json:"turn"`
}

type turnNotification struct {
	ThreadID string `json:"threadId"`
	Turn     turn   `json:"turn"`
}

// itemNotification is item/started and item/completed.
type itemNotification struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Item     item   `json:"item"`
}

// item is a ThreadItem; which fields are set depends on Type.
type item struct {
	Type string `json:"type"`
	ID   string `json:"id"`

	Text string `json:"text"` // agentMessage, plan

	// Summary and Content are reasoning's paragraphs; other item types use
	// the same names for other shapes, so they are decoded on demand.
	Summary json.RawMessage `json:"summary"`
	Content json.RawMessage `json:"content"`

	Command          string  `json:"command"` // commandExecution
	Status           string  `json:"status"`  // inProgress, completed, failed, declined
	AggregatedOutput *string `json:"aggregatedOutput"`
	ExitCode         *int    `json:"exitCode"`

	Changes []fileChange `json:"changes"` // fileChange

	Server    string          `json:"server"` // mcpToolCall
	Tool      string          `json:"tool"`   // mcpToolCall, dynamicToolCall
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	ItemError json.RawMessage `json:"error"` // mcpToolCall: {message}

	Query string `json:"query"` // webSearch
}

type fileChange struct {
	Path string     `json:"path"`
	Kind changeKind `json:"kind"`
	Diff string     `json:"diff"`
}

type changeKind struct {
	Type     string `json:"type"` // add, delete, update
	MovePath string `json:"move_path,omitempty"`
}

// deltaNotification is every item/*/delta notification.
type deltaNotification struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	ItemID   string `json:"itemId"`
	Delta    string `json:"delta"`
}

type tokenUsageNotification struct {
	ThreadID   string `json:"threadId"`
	TurnID     string `json:"turnId"`
	TokenUsage struct {
		Last tokenBreakdown `json:"last"`
	} `json:"tokenUsage"`
}

type tokenBreakdown struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
}

type errorNotification struct {
	ThreadID  string    `json:"threadId"`
	TurnID    string    `json:"turnId"`
	Error     turnError `json:"error"`
	WillRetry bool      `json:"willRetry"`
}

type warningNotification struct {
	Message string `json:"message"` // warning
	Summary string `json:"summary"` // configWarning
}

type commandApprovalParams struct {
	ThreadID string  `json:"threadId"`
	TurnID   string  `json:"turnId"`
	ItemID   string  `json:"itemId"`
	Command  *string `json:"command"`
	Cwd      *string `json:"cwd"`
	Reason   *string `json:"reason"`
}

type fileApprovalParams struct {
	ThreadID  string  `json:"threadId"`
	TurnID    string  `json:"turnId"`
	ItemID    string  `json:"itemId"`
	Reason    *string `json:"reason"`
	GrantRoot *string `json:"grantRoot"`
}

// approvalResponse answers both approval requests. Decisions sent: accept,
// decline, cancel (never acceptForSession).
type approvalResponse struct {
	Decision string `json:"decision"`
}

type userInputParams struct {
	ThreadID  string `json:"threadId"`
	TurnID    string `json:"turnId"`
	ItemID    string `json:"itemId"`
	Questions []struct {
		ID       string `json:"id"`
		Header   string `json:"header"`
		Question string `json:"question"`
		Options  []struct {
			Label       string `json:"label"`
			Description string `json:"description"`
		} `json:"options"`
	} `json:"questions"`
}

type userInputAnswer struct {
	Answers []string `json:"answers"`
}

type userInputResponse struct {
	Answers map[string]userInputAnswer `json:"answers"`
}

// stringList decodes a list of strings, nil for anything else.
func stringList(r json.RawMessage) []string {
	var s []string
	if json.Unmarshal(r, &s) != nil {
		return nil
	}
	return s
}

// errorText is an item's error: a {message} object or a string; "" for
// none.
func errorText(r json.RawMessage) string {
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(r, &o) == nil && o.Message != "" {
		return o.Message
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	return ""
}
