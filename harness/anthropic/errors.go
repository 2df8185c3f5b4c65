package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/atelier-studio/atelier/harness/modelkit"
)

// Errors a Step may end with, for callers to branch on with errors.Is.
var (
	// ErrAuth means the server refused the key (HTTP 401 or 403, or an
	// authentication_error or permission_error).
	ErrAuth = errors.New("authentication failed")
	// ErrRateLimited means the server kept answering 429 until the retries ran out.
	ErrRateLimited = errors.New("rate limited")
	// ErrOverloaded means the server stayed overloaded (529, 503,
	// overloaded_error) through the retries.
	ErrOverloaded = errors.New("server overloaded")
	// ErrMalformed means the stream broke the protocol: bad JSON, a stream
	// cut short, a tool call whose input is not JSON.
	ErrMalformed = errors.New("malformed stream")
)

const op = "anthropic messages"

// classify turns what the SDK returned into our errors: typed, with the
// server's message, and marked transient when a retry may help. An error
// event inside a stream arrives as an *sdk.Error with the stream's status
// (200) and the event's error type.
func classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		var after time.Duration
		if apiErr.Response != nil {
			after = modelkit.RetryAfter(apiErr.Response.Header, time.Now())
		}
		return apiError(apiErr.StatusCode, string(apiErr.Type()), apiMessage(apiErr.RawJSON()), after)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("%s: %w: bad JSON in stream: %w", op, ErrMalformed, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

func apiError(status int, kind, msg string, after time.Duration) error {
	detail := op + ": "
	if status != http.StatusOK && status != 0 {
		detail += fmt.Sprintf("%d %s", status, http.StatusText(status))
	} else {
		detail += "stream error"
	}
	if kind != "" {
		detail += " (" + kind + ")"
	}
	if msg != "" {
		detail += ": " + msg
	}
	switch {
	case kind == "authentication_error" || kind == "permission_error" || status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("%s: %w", detail, ErrAuth)
	case kind == "rate_limit_error" || status == http.StatusTooManyRequests:
		return &modelkit.Transient{Err: fmt.Errorf("%s: %w", detail, ErrRateLimited), Why: "rate limited", After: after}
	case kind == "overloaded_error" || status == 529 || status == http.StatusServiceUnavailable:
		return &modelkit.Transient{Err: fmt.Errorf("%s: %w", detail, ErrOverloaded), Why: "overloaded", After: after}
	case status == http.StatusBadGateway || status == http.StatusGatewayTimeout:
		return &modelkit.Transient{Err: errors.New(detail), Why: fmt.Sprintf("server error %d", status), After: after}
	}
	return errors.New(detail)
}

// apiMessage digs the server's message out of an error body
// ({"type":"error","error":{"type","message"}}).
func apiMessage(raw string) string {
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal([]byte(raw), &body) == nil {
		if body.Error.Message != "" {
			return body.Error.Message
		}
		if body.Message != "" {
			return body.Message
		}
	}
	raw = strings.TrimSpace(raw)
	if len(raw) > 300 {
		raw = raw[:300] + "…"
	}
	return raw
}
