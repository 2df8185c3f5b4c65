package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/atelier-studio/atelier/attach"
	"github.com/atelier-studio/atelier/workflow"
)

// startRows are what the studio starts beside a session through
// attach.Engine (Workflows, RunWorkflow, FireEvent): the same call on
// every side, the host's runner and triggers behind it.
var startRows = []wireRow{
	both("the studio lists the workflows and starts a run", func(t *testing.T, w *wired) string {
		ctx := ctxFor(t)
		list, err := w.a.Workflows(ctx)
		var names []string
		for _, s := range list {
			names = append(names, fmt.Sprintf("%s %q input %s", s.Name, s.Description, compact(t, s.Input)))
		}
		run, rerr := w.a.RunWorkflow(ctx, "greet", json.RawMessage(`{"who":"you"}`))
		started := runWord(&run, rerr)
		if rerr == nil {
			got, gerr := w.wf.Wait(ctx, run.ID)
			started += "; then " + runWord(got, gerr)
		}
		_, nowf := w.a.RunWorkflow(ctx, "nosuch", nil)
		_, bad := w.a.RunWorkflow(ctx, "greet", json.RawMessage(`{"nobody":1}`))
		return fmt.Sprintf("%v %s; started %s; unknown %s (not found %v); bad input unusable %v",
			names, errWord(err), started, errWord(nowf), errors.Is(nowf, workflow.ErrNotFound), errors.Is(bad, workflow.ErrUnusable))
	}),
	both("the studio fires an event: the listening triggers are named, bad input refused", func(t *testing.T, w *wired) string {
		ctx := ctxFor(t)
		fired, err := w.a.FireEvent(ctx, "deploy", json.RawMessage(`{"version": 7}`))
		other, oerr := w.a.FireEvent(ctx, "other", nil)
		_, badName := w.a.FireEvent(ctx, "not an event", nil)
		_, badData := w.a.FireEvent(ctx, "deploy", json.RawMessage(`{not json`))
		return fmt.Sprintf("deploy woke %d, triggers %v %s; other woke %d, triggers %v %s; bad name %s (bad request %v); bad data bad request %v",
			fired.Woken, fired.Triggers, errWord(err), other.Woken, other.Triggers, errWord(oerr),
			errWord(badName), errors.Is(badName, attach.ErrBadRequest), errors.Is(badData, attach.ErrBadRequest))
	}),
}

// both is a wire row whose call is the attach surface's on every side.
func both(name string, run func(t *testing.T, w *wired) string) wireRow {
	return wireRow{name: name, engine: run, client: run}
}

// compact is raw JSON without its spacing, so both sides word it alike.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	if len(raw) == 0 {
		return "none"
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
