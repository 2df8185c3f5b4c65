package attach

import (
	"errors"
	"testing"

	"github.com/atelier-studio/atelier/api/client"
	"github.com/atelier-studio/atelier/engine"
)

// TestEngineProblemsBack: every code of the engine's table comes back from
// a host as the engine's own error, with the host's message.
func TestEngineProblemsBack(t *testing.T) {
	for _, p := range engine.Problems {
		err := Err(&client.Problem{Status: p.Status, Code: p.Code, Detail: "the host's words"})
		if !errors.Is(err, p.Err) || err.Error() != "the host's words" {
			t.Errorf("%s: %v does not match %v", p.Code, err, p.Err)
		}
	}
}
