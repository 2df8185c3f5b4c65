package engine

import (
	"errors"
	"strings"
	"testing"
)

// TestTextTooLarge: up to MaxText bytes is within the limit; one more is
// ErrTextTooLarge, saying what and how large and naming the limit.
func TestTextTooLarge(t *testing.T) {
	if err := TextTooLarge("a prompt", MaxText); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	err := TextTooLarge("a prompt", MaxText+1)
	if !errors.Is(err, ErrTextTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
	for _, want := range []string{"a prompt of 262145 bytes", "256 KiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if p, ok := ProblemOf(err); !ok || p.Status != 413 || p.Code != CodeTextTooLarge {
		t.Errorf("reported as %+v, %v", p, ok)
	}
}
