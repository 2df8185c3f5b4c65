package openai

import "github.com/atelier-studio/atelier/harness/modelkit"

// Retry says how a Step retries rate limits and overloads: exponential
// backoff with jitter from BaseDelay, capped at MaxDelay, for at most
// Attempts calls in all; a Retry-After the server sends wins over the
// backoff, and one longer than MaxDelay ends the step instead of waiting.
type Retry = modelkit.Retry

// DefaultRetry is the policy the zero fields of Settings.Retry take.
func DefaultRetry() Retry { return modelkit.DefaultRetry() }
