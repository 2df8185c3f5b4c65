package contract

import (
	"errors"
	"strings"
	"testing"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/sessions"
)

// The row of the engine's limit on text (engine.MaxText): refused alike
// on every side, with the same code and words, and nothing made.
func init() {
	rows = append(rows, row{"text over the limit is refused and changes nothing", textLimitRow})
}

func textLimitRow(t *testing.T, e attach.Engine, _ string) string {
	over := strings.Repeat("x", engine.MaxText+1)
	var words []string
	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, core.ErrTextTooLarge) {
			t.Errorf("%s over the limit: %v, want ErrTextTooLarge", what, err)
		}
		words = append(words, what+": "+errWord(err))
	}
	before := len(e.Snapshot().Sessions)
	_, err := e.Create(core.CreateOptions{Instructions: over})
	refused("create", err)
	if n := len(e.Snapshot().Sessions); n != before {
		t.Errorf("a refused create made %d session(s)", n-before)
	}
	s := create(t, e, core.CreateOptions{Mode: sessions.Continuous, Instructions: strings.Repeat("y", engine.MaxText)})
	queued, err := e.Send(s.ID, "first")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Send(s.ID, over)
	refused("send", err)
	_, err = e.Steer(s.ID, over)
	refused("steer", err)
	refused("edit", e.EditQueued(s.ID, queued.ID, over))
	q, err := moreOf(t, e).Queue(s.ID)
	if err != nil || len(q) != 1 || q[0].Text != "first" {
		t.Errorf("the queue after refused inputs: %d item(s), %v", len(q), err)
	}
	return strings.Join(words, "; ")
}
