package openai

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

// Retry says how a Step retries rate limits and overloads: exponential
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

func (r Retry) withDefaults() Retry {
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

// rewinder is an Emitter that can drop the provisional output of the step
// in flight, so a stream that failed after it began can be retried without
// doubling its text or leaving half a tool call behind.
type rewinder interface{ Rewind() }

// tracker notes whether an attempt emitted anything.
type tracker struct {
	harness.Emitter
	emitted bool
}

func (t *tracker) Text(d string)          { t.emitted = true; t.Emitter.Text(d) }
func (t *tracker) Reasoning(d string)     { t.emitted = true; t.Emitter.Reasoning(d) }
func (t *tracker) ToolStart(id, n string) { t.emitted = true; t.Emitter.ToolStart(id, n) }
func (t *tracker) ToolInput(id, d string) { t.emitted = true; t.Emitter.ToolInput(id, d) }

// run calls attempt until it succeeds, fails for good, or the tries run out.
// A failure after output began is retried only when out can rewind it.
func (r Retry) run(ctx context.Context, out harness.Emitter, attempt func(harness.Emitter) (harness.StepResult, error)) (harness.StepResult, error) {
	for n := 1; ; n++ {
		t := &tracker{Emitter: out}
		res, err := attempt(t)
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			return harness.StepResult{}, ctx.Err()
		}
		var tr *transient
		if !errors.As(err, &tr) {
			return harness.StepResult{}, err
		}
		if n >= r.Attempts {
			return harness.StepResult{}, fmt.Errorf("gave up after %d attempts: %w", n, tr.err)
		}
		wait := r.backoff(n)
		if tr.after > 0 {
			if tr.after > r.MaxDelay {
				return harness.StepResult{}, fmt.Errorf("server asks to wait %s, longer than %s: %w", fmtDelay(tr.after), fmtDelay(r.MaxDelay), tr.err)
			}
			wait = tr.after
		}
		if t.emitted {
			rw, ok := out.(rewinder)
			if !ok {
				return harness.StepResult{}, fmt.Errorf("stream failed after output began, not retried: %w", tr.err)
			}
			rw.Rewind()
		}
		out.Notice(fmt.Sprintf("retrying in %s: %s", fmtDelay(wait), tr.why))
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return harness.StepResult{}, ctx.Err()
		case <-timer.C:
		}
	}
}

// fmtDelay shows a wait as a person reads it: whole seconds, or
// milliseconds under a second.
func fmtDelay(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// retryAfter reads the wait a server asks for: retry-after-ms, or
// Retry-After in seconds or as an HTTP date. Zero when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
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
