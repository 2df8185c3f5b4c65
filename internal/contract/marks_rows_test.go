package contract

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/core"
	"github.com/atelier-studio/atelier/engine"
	"github.com/atelier-studio/atelier/harness"
)

// The change marks are the host's: the same set through every side, from
// a change made by another program to a turn that empties it and marks
// what the turn wrote.
func init() {
	rows = append(rows, row{"the change marks, then a turn", marksRow})
}

func marksRow(t *testing.T, e attach.Engine, ws string) string {
	ctx := ctxFor(t)
	marks := func(what string, done func([]engine.ChangeMark) bool) string {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; {
			ms, err := e.ChangeMarks(ctx)
			if err != nil {
				t.Fatalf("the change marks: %v", err)
			}
			if done(ms) {
				return fmt.Sprintf("%+v", ms)
			}
			if time.Now().After(deadline) {
				t.Fatalf("the change marks never showed %s: %+v", what, ms)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "by-hand.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := marks("by-hand.txt", func(ms []engine.ChangeMark) bool { return len(ms) == 1 && ms[0].Path == "by-hand.txt" })
	id := ran(t, e, core.CreateOptions{Approval: core.PolicyAuto})
	after := marks("the demo's note alone", func(ms []engine.ChangeMark) bool {
		return len(ms) == 1 && ms[0].Path == harness.DemoFile
	})
	ms, _ := e.ChangeMarks(ctx) // read again above: no error here
	return fmt.Sprintf("before %s; after the turn %s, by its session %v", before, after, len(ms) == 1 && ms[0].By == id)
}
