package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/atelier-studio/atelier/harness"
)

// DefaultBaseURL is Anthropic's own endpoint, used when Settings.BaseURL is empty.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens caps a reply when Settings.MaxTokens is zero; the API
// wants a cap on every request.
const DefaultMaxTokens = 8192

// Settings configure a Model; the zero value of each field has a sensible
// default except Model, which a StepRequest may also give.
type Settings struct {
	// BaseURL is the API root without the version path (the SDK adds
	// /v1/messages); a trailing /v1 is tolerated. Default: DefaultBaseURL.
	BaseURL string
	// Model is the model name; StepRequest.Model overrides it when set.
	Model string
	// APIKey is the key itself, sent as x-api-key (the caller reads it
	// from the environment variable the configuration names).
	APIKey string
	// Headers are sent with every request (anthropic-beta, a proxy's token...).
	Headers map[string]string
	// MaxTokens caps the reply, thinking included. Zero means
	// DefaultMaxTokens, plus the thinking budget when thinking is on.
	MaxTokens int64
	// ThinkingBudget turns extended thinking on with this many tokens
	// (at least 1024); zero leaves it off.
	ThinkingBudget int64
	// Retry overrides DefaultRetry() field by field.
	Retry Retry
	// HTTPClient replaces the default client (tests, proxies).
	HTTPClient *http.Client
}

// Model is a harness.Model over the Anthropic Messages API. Its only state
// is the cache of recent signed thinking blocks; it is safe for concurrent
// use by many sessions.
type Model struct {
	s        Settings
	retry    Retry
	msgs     sdk.MessageService
	thinking *thinkingCache
}

var _ harness.Model = (*Model)(nil)

// New checks the settings and returns a Model. It reads no environment
// variable or profile: the key and URL come from the caller only.
func New(s Settings) (*Model, error) {
	if s.BaseURL == "" {
		s.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(s.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("anthropic: base url %q: want an http or https URL", s.BaseURL)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	if s.ThinkingBudget < 0 || (s.ThinkingBudget > 0 && s.ThinkingBudget < 1024) {
		return nil, fmt.Errorf("anthropic: thinking budget %d: want 0 (off) or at least 1024 tokens", s.ThinkingBudget)
	}
	switch {
	case s.MaxTokens < 0:
		return nil, fmt.Errorf("anthropic: max tokens %d: must not be negative", s.MaxTokens)
	case s.MaxTokens == 0:
		s.MaxTokens = DefaultMaxTokens + s.ThinkingBudget
	case s.MaxTokens <= s.ThinkingBudget:
		return nil, fmt.Errorf("anthropic: max tokens %d must exceed the thinking budget %d", s.MaxTokens, s.ThinkingBudget)
	}
	hc := s.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(u.String()),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // ours are the retries, shown as notices
	}
	if s.APIKey != "" {
		opts = append(opts, option.WithAPIKey(s.APIKey))
	}
	for k, v := range s.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &Model{s: s, retry: s.Retry.WithDefaults(), msgs: sdk.NewMessageService(opts...), thinking: newThinkingCache(512)}, nil
}

// Name implements harness.Harness.
func (m *Model) Name() string { return "anthropic" }

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
		return harness.StepResult{}, errors.New("anthropic: no model configured")
	}
	params, dropped := m.params(model, req)
	if dropped {
		out.Notice("thinking is off for this step: the signed thinking of the last tool calls is not at hand")
	}
	return m.retry.Run(ctx, out, func(e harness.Emitter) (harness.StepResult, error) {
		return m.attempt(ctx, params, e)
	})
}

// attempt streams one Messages call.
func (m *Model) attempt(ctx context.Context, p sdk.MessageNewParams, out harness.Emitter) (harness.StepResult, error) {
	stream := m.msgs.NewStreaming(ctx, p)
	// The stream's failure is stream.Err's; closing only frees the
	// connection.
	defer func() { _ = stream.Close() }()
	acc := newMessageStream(out)
	for stream.Next() {
		if err := acc.add(stream.Current()); err != nil {
			return harness.StepResult{}, err
		}
		if acc.done {
			break
		}
	}
	if err := stream.Err(); err != nil {
		return harness.StepResult{}, classify(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return harness.StepResult{}, err
	}
	res, err := acc.result()
	if err == nil && len(res.ToolCalls) > 0 {
		ids := make([]string, len(res.ToolCalls))
		for i, c := range res.ToolCalls {
			ids[i] = c.ID
		}
		m.thinking.put(ids, acc.thinkingBlocks())
	}
	return res, err
}
