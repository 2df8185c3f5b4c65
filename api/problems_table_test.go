package api

import (
	"fmt"
	"testing"

	"github.com/atelier-studio/atelier/engine"
)

// TestEngineProblems: every error of the engine's table is reported with
// its status and code, however it is wrapped.
func TestEngineProblems(t *testing.T) {
	for _, want := range engine.Problems {
		p := problemFor(fmt.Errorf("session x: %w", want.Err))
		if p.Code != want.Code || p.Status != want.Status || p.Detail != "session x: "+want.Err.Error() {
			t.Errorf("%v: reported %d %s %q, want %d %s", want.Err, p.Status, p.Code, p.Detail, want.Status, want.Code)
		}
	}
	if p := problemFor(&engine.TransitionError{Session: "s", Status: "ENDED", Action: "stop"}); p.Code != engine.CodeTransitionRefused || p.Status != 409 {
		t.Errorf("a refused transition: %d %s", p.Status, p.Code)
	}
}
