package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/atelier-studio/atelier/harness/modelkit"
)

// Errors a Step may end with, for callers to branch on with errors.Is.
var (
	// ErrAuth means the server refused the key (HTTP 401 or 403).
	ErrAuth = errors.New("authentication failed")
	// ErrRateLimited means the server kept answering 429 until the retries ran out.
	ErrRateLimited = errors.New("rate limited")
	// ErrOverloaded means the server stayed overloaded (503, 529) through the retries.
	ErrOverloaded = errors.New("server overloaded")
	// ErrMalformed means the stream broke the protocol: bad JSON, a stream
	// cut short, a tool call without a name or with arguments that are not JSON.
	ErrMalformed = errors.New("malformed stream")
)

// classify turns what the SDK returned into our errors: typed, with the
// server's message, and marked transient when a retry may help.
func classify(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		msg := apiMessage(apiErr)
		var after time.Duration
		if apiErr.Response != nil {
			after = modelkit.RetryAfter(apiErr.Response.Header, time.Now())
		}
		return statusError(op, apiErr.StatusCode, msg, after)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return streamError(op, se.Event.Data)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("%s: %w: bad JSON in stream: %w", op, ErrMalformed, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// statusError maps an HTTP error status to our errors.
func statusError(op string, status int, msg string, after time.Duration) error {
	detail := fmt.Sprintf("%s: %d %s", op, status, http.StatusText(status))
	if msg != "" {
		detail += ": " + msg
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("%s: %w", detail, ErrAuth)
	case http.StatusTooManyRequests:
		return &modelkit.Transient{Err: fmt.Errorf("%s: %w", detail, ErrRateLimited), Why: "rate limited", After: after}
	case http.StatusServiceUnavailable, 529:
		return &modelkit.Transient{Err: fmt.Errorf("%s: %w", detail, ErrOverloaded), Why: "overloaded", After: after}
	case http.StatusBadGateway, http.StatusGatewayTimeout:
		return &modelkit.Transient{Err: errors.New(detail), Why: fmt.Sprintf("server error %d", status), After: after}
	}
	return errors.New(detail)
}

// streamError maps an error object sent inside a stream: Chat Completions'
// {"error":{...}} chunk, or the Responses API's error event.
func streamError(op string, data []byte) error {
	var body struct {
		Error   *apiErrorBody `json:"error"`
		Code    any           `json:"code"`
		Message string        `json:"message"`
		Type    string        `json:"type"`
	}
	_ = json.Unmarshal(data, &body)
	e := apiErrorBody{Code: body.Code, Message: body.Message, Type: body.Type}
	if body.Error != nil {
		e = *body.Error
	}
	return e.err(op + ": stream error")
}

// apiErrorBody is the error object of the OpenAI wire format.
type apiErrorBody struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

func (e apiErrorBody) err(op string) error {
	code := ""
	if e.Code != nil {
		code = fmt.Sprint(e.Code)
	}
	msg := e.Message
	if msg == "" {
		msg = "unknown error"
	}
	if e.Type != "" {
		msg += " (" + e.Type + ")"
	}
	detail := fmt.Sprintf("%s: %s", op, msg)
	kind := strings.ToLower(e.Type + " " + code)
	switch {
	case code == "401" || code == "403" || strings.Contains(kind, "auth") || strings.Contains(kind, "invalid_api_key"):
		return fmt.Errorf("%s: %w", detail, ErrAuth)
	case code == "429" || strings.Contains(kind, "rate_limit"):
		return &modelkit.Transient{Err: fmt.Errorf("%s: %w", detail, ErrRateLimited), Why: "rate limited"}
	case code == "503" || code == "529" || strings.Contains(kind, "overloaded") || strings.Contains(kind, "slow_down"):
		return &modelkit.Transient{Err: fmt.Errorf("%s: %w", detail, ErrOverloaded), Why: "overloaded"}
	}
	return errors.New(detail)
}

// apiMessage digs the server's own message out of an HTTP error.
func apiMessage(e *oai.Error) string {
	if e.Message != "" {
		return e.Message
	}
	raw := e.RawJSON()
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal([]byte(raw), &body) == nil {
		var inner apiErrorBody
		if json.Unmarshal(body.Error, &inner) == nil && inner.Message != "" {
			return inner.Message
		}
		var s string
		if json.Unmarshal(body.Error, &s) == nil && s != "" {
			return s
		}
		if body.Message != "" {
			return body.Message
		}
	}
	if len(raw) > 300 {
		raw = raw[:300] + "…"
	}
	return strings.TrimSpace(raw)
}
