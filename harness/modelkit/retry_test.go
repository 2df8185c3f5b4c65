package modelkit

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"8"}}, 8 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"8"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(20 * time.Second).Format(http.TimeFormat)}}, 20 * time.Second},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{}, 0},
	}
	for _, c := range cases {
		if got := RetryAfter(c.h, now); got != c.want {
			t.Errorf("%v: %s, want %s", c.h, got, c.want)
		}
	}
}

func TestBackoffGrowsWithinCap(t *testing.T) {
	r := Retry{Attempts: 10, BaseDelay: time.Second, MaxDelay: 8 * time.Second}
	for n := 1; n <= 8; n++ {
		full := min(time.Second<<(n-1), 8*time.Second)
		for range 50 {
			if d := r.backoff(n); d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %s, want in [%s, %s]", n, d, full/2, full)
			}
		}
	}
	if FmtDelay(7600*time.Millisecond) != "8s" || FmtDelay(12*time.Millisecond) != "12ms" {
		t.Errorf("FmtDelay: %s %s", FmtDelay(7600*time.Millisecond), FmtDelay(12*time.Millisecond))
	}
}
