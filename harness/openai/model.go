package openai

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/modelkit"
)

// API picks the wire protocol.
type API string

// The two APIs a Model speaks.
const (
	// ChatCompletions is POST {base}/chat/completions, what every
	// OpenAI-compatible server speaks.
	ChatCompletions API = "chat"
	// Responses is POST {base}/responses, OpenAI's newer API.
	Responses API = "responses"
)

// DefaultBaseURL is OpenAI's own endpoint, used when Settings.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Settings configure a Model; the zero value of each field has a sensible
// default except Model, which a StepRequest may also give.
type Settings struct {
	// API is ChatCompletions (the default) or Responses.
	API API
	// BaseURL is the API root including its version path, e.g.
	// http://127.0.0.1:11434/v1 for Ollama. Default: DefaultBaseURL.
	BaseURL string
	// Model is the model name; StepRequest.Model overrides it when set.
	Model string
	// APIKey is the key itself (the caller reads it from the environment
	// variable the configuration names); empty sends no Authorization
	// header, which local servers accept.
	APIKey string
	// Headers are sent with every request (OpenRouter's HTTP-Referer, a
	// proxy's token...).
	Headers map[string]string
	// MaxTokens caps the reply; zero leaves it to the server.
	MaxTokens int64
	// ReasoningEffort (low, medium, high) is sent only when set, since
	// models without reasoning refuse it.
	ReasoningEffort string
	// Retry overrides DefaultRetry() field by field.
	Retry Retry
	// HTTPClient replaces the default client (tests, proxies).
	HTTPClient *http.Client
}

// Model is a harness.Model over the OpenAI APIs. It keeps no conversation
// state: each Step sends the whole history, so it is safe for concurrent
// use by many sessions.
type Model struct {
	s     Settings
	retry Retry
	chat  oai.ChatCompletionService
	resp  responses.ResponseService
}

var _ harness.Model = (*Model)(nil)

// New checks the settings and returns a Model. It reads no environment
// variable: the key and URL come from the caller only.
func New(s Settings) (*Model, error) {
	if s.API == "" {
		s.API = ChatCompletions
	}
	if s.API != ChatCompletions && s.API != Responses {
		return nil, fmt.Errorf("openai: unknown api %q (want %q or %q)", s.API, ChatCompletions, Responses)
	}
	if s.BaseURL == "" {
		s.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(s.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: base url %q: want an http or https URL", s.BaseURL)
	}
	if s.MaxTokens < 0 {
		return nil, fmt.Errorf("openai: max tokens %d: must not be negative", s.MaxTokens)
	}
	switch s.ReasoningEffort {
	case "", "minimal", "low", "medium", "high", "xhigh":
	default:
		return nil, fmt.Errorf("openai: reasoning effort %q: want low, medium or high", s.ReasoningEffort)
	}
	hc := s.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(s.BaseURL),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // ours are the retries, shown as notices
	}
	if s.APIKey != "" {
		opts = append(opts, option.WithAPIKey(s.APIKey))
	}
	for k, v := range s.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &Model{
		s:     s,
		retry: s.Retry.WithDefaults(),
		chat:  oai.NewChatCompletionService(opts...),
		resp:  responses.NewResponseService(opts...),
	}, nil
}

// Name implements harness.Harness.
func (m *Model) Name() string { return "openai" }

// Caps implements harness.Harness: the engine's tool loop gives a boundary
// at every model call, and a Model resumes from its transcript alone.
func (m *Model) Caps() harness.Caps {
	return harness.Caps{Boundary: harness.StepBoundary, Resume: true, Compact: true}
}

// Step implements harness.Model: one streamed model call, retried on rate
// limits and overloads. A retry after output began needs an Emitter with a
// Rewind() method that drops the step's provisional output; without one,
// such a failure ends the step.
func (m *Model) Step(ctx context.Context, req harness.StepRequest, out harness.Emitter) (harness.StepResult, error) {
	model := req.Model
	if model == "" {
		model = m.s.Model
	}
	if model == "" {
		return harness.StepResult{}, errors.New("openai: no model configured")
	}
	ts := modelkit.Turns(req.History)
	if m.s.API == Responses {
		params := m.responsesParams(model, req, ts)
		return m.retry.Run(ctx, out, func(e harness.Emitter) (harness.StepResult, error) {
			return m.responsesAttempt(ctx, params, e)
		})
	}
	params := m.chatParams(model, req, ts)
	return m.retry.Run(ctx, out, func(e harness.Emitter) (harness.StepResult, error) {
		return m.chatAttempt(ctx, params, e)
	})
}

// schema returns a tool's JSON schema as the SDKs take it; an empty or
// unreadable schema becomes an object with no properties.
func schema(raw []byte) map[string]any {
	var s map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &s) == nil && s != nil {
		return s
	}
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

// newCallID names a tool call the server left without an id.
func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

// officialHost reports whether the base URL is OpenAI's own API, which
// wants max_completion_tokens where compatible servers know max_tokens.
func officialHost(base string) bool {
	u, err := url.Parse(base)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}
