package modelkit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/harness"
)

// Retry says how a model harness's Step retries rate limits and overloads: exponential
// backoff with jitter from BaseDelay, capped at MaxDelay, for at most
// Attempts calls in all. A Retry-After the server sends wins over the
// backoff; one longer than MaxDelay ends the step instead of waiting.
type Retry struct {
	Attempts  int
	BaseDelay time.Duration
	MaxDelay  time.Duration
}

// DefaultRetry is the policy the zero fields of Settings.Retry take: five
// calls in all, waits of about 2s, 4s, 8s, 16s, none over a minute.
func DefaultRetry() Retry {
	return Retry{Attempts: 5, BaseDelay: 2 * time.Second, MaxDelay: time.Minute}
}

// WithDefaults fills the zero fields from DefaultRetry.
func (r Retry) WithDefaults() Retry {
	d := DefaultRetry()
	if r.Attempts <= 0 {
		r.Attempts = d.Attempts
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = d.BaseDelay
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = d.MaxDelay
	}
	return r
}

// backoff is the wait before retry number n (1 for the first retry): the
// exponential step, half of it fixed and half random.
func (r Retry) backoff(n int) time.Duration {
	d := r.BaseDelay
	for i := 1; i < n && d < r.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, r.MaxDelay)
	half := d / 2
	return half + rand.N(half+1)
}

// tracker notes whether an attempt emitted anything.
type tracker struct {
	harness.Emitter
	emitted bool
}

func (t *tracker) Text(d string)          { t.emitted = true; t.Emitter.Text(d) }
func (t *tracker) Reasoning(d string)     { t.emitted = true; t.Emitter.Reasoning(d) }
func (t *tracker) ToolStart(id, n string) { t.emitted = true; t.Emitter.ToolStart(id, n) }
func (t *tracker) ToolInput(id, d string) { t.emitted = true; t.Emitter.ToolInput(id, d) }

// SignReasoning and RedactedReasoning pass signed thinking on when the
// emitter keeps it (harness.Signer).
func (t *tracker) SignReasoning(sig string) {
	if s, ok := t.Emitter.(harness.Signer); ok {
		s.SignReasoning(sig)
	}
}

func (t *tracker) RedactedReasoning(data string) {
	t.emitted = true
	if s, ok := t.Emitter.(harness.Signer); ok {
		s.RedactedReasoning(data)
	}
}

// Run calls attempt until it succeeds, fails for good, or the tries run
// out. Only a *Transient error is retried; a failure after output began is
// retried only when out can rewind it (harness.Rewinder).
func (r Retry) Run(ctx context.Context, out harness.Emitter, attempt func(harness.Emitter) (harness.StepResult, error)) (harness.StepResult, error) {
	for n := 1; ; n++ {
		t := &tracker{Emitter: out}
		res, err := attempt(t)
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			return harness.StepResult{}, ctx.Err()
		}
		var tr *Transient
		if !errors.As(err, &tr) {
			return harness.StepResult{}, err
		}
		if n >= r.Attempts {
			return harness.StepResult{}, fmt.Errorf("gave up after %d attempts: %w", n, tr.Err)
		}
		wait := r.backoff(n)
		if tr.After > 0 {
			if tr.After > r.MaxDelay {
				return harness.StepResult{}, fmt.Errorf("server asks to wait %s, longer than %s: %w", FmtDelay(tr.After), FmtDelay(r.MaxDelay), tr.Err)
			}
			wait = tr.After
		}
		if t.emitted {
			rw, ok := out.(harness.Rewinder)
			if !ok {
				return harness.StepResult{}, fmt.Errorf("stream failed after output began, not retried: %w", tr.Err)
			}
			rw.Rewind()
		}
		out.Notice(fmt.Sprintf("retrying in %s: %s", FmtDelay(wait), tr.Why))
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return harness.StepResult{}, ctx.Err()
		case <-timer.C:
		}
	}
}

// FmtDelay shows a wait as a person reads it: whole seconds, or
// milliseconds under a second.
func FmtDelay(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// RetryAfter reads the wait a server asks for: retry-after-ms, or
// Retry-After in seconds or as an HTTP date. Zero when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Transient is an error worth retrying: Why is the notice's reason ("rate
// limited", "overloaded"), After the wait the server asked for, if any.
type Transient struct {
	Err   error
	Why   string
	After time.Duration
}

func (t *Transient) Error() string { return t.Err.Error() }
func (t *Transient) Unwrap() error { return t.Err }
