package trigger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/atelier-studio/atelier/config"
	"github.com/atelier-studio/atelier/core"
)

// firing is one firing about to happen: its id (unique to what fired it),
// what fired it, and what its templates see.
type firing struct {
	id        string
	cause     string
	scheduled *time.Time
	data      map[string]any
}

// firingOf is the firing of event trigger t by sig: its id is the event's.
func firingOf(t config.Trigger, sig core.Signal) firing {
	var data any
	if sig.Data != "" {
		if err := json.Unmarshal([]byte(sig.Data), &data); err != nil {
			data = sig.Data // not JSON after all (redacted?): the text
		}
	}
	return firing{id: t.Name + "@event/" + sig.ID, cause: "event " + sig.Name,
		data: map[string]any{"event": map[string]any{"name": sig.Name, "id": sig.ID, "data": data}}}
}

// KeyPrefix starts the idempotency key of the session a firing creates:
// the key is KeyPrefix and the firing's id.
const KeyPrefix = "trigger:"

// fire records the firing and starts what t starts, unless a firing of
// that id was recorded already (by this host or an earlier one).
func (r *Runner) fire(t config.Trigger, f firing) {
	r.mu.Lock()
	if r.rec == nil {
		r.mu.Unlock()
		return // stopped
	}
	if st, ok := r.done[f.id]; ok {
		r.mu.Unlock()
		r.opts.Logf("trigger %s: %s already %s: not again", t.Name, f.id, st)
		return
	}
	now := time.Now().UTC()
	line := Firing{ID: f.id, Trigger: t.Name, State: StateFired, Time: now, Scheduled: f.scheduled, Schedule: t.Schedule, Cause: f.cause}
	data := f.data
	if data == nil {
		data = map[string]any{}
	}
	data["trigger"] = t.Name
	data["firing"] = map[string]any{"id": f.id, "time": now}
	text, err := render(t, data)
	if err != nil {
		line.State, line.Error = StateFailed, err.Error()
	} else {
		line.Text = text
	}
	if err := r.rec.append(line); err != nil {
		r.mu.Unlock()
		r.say("", fmt.Sprintf("trigger %s did not fire (%s): %v", t.Name, f.cause, err))
		return
	}
	r.done[f.id] = line.State
	r.mu.Unlock()
	if line.State == StateFailed {
		r.say("", fmt.Sprintf("trigger %s (%s) could not fire: %s", t.Name, f.cause, line.Error))
		return
	}
	r.start(t, line)
}

// render executes the trigger's template over data; a workflow's input
// must come out as JSON, a prompt as some text.
func render(t config.Trigger, data map[string]any) (string, error) {
	tpl := t.PromptTemplate
	if t.Workflow != "" {
		tpl = t.InputTemplate
	}
	if tpl == nil {
		return "", fmt.Errorf("trigger %s has no template", t.Name)
	}
	var b bytes.Buffer
	if err := tpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render: %w", err)
	}
	out := b.String()
	if t.Workflow != "" && !json.Valid([]byte(out)) {
		return "", fmt.Errorf("the input is not JSON: %s", clip(out))
	}
	if strings.TrimSpace(out) == "" {
		return "", fmt.Errorf("the prompt came out empty")
	}
	return out, nil
}

func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}

// start creates and starts the firing's session (its key makes a second
// create return the first one's session) or starts its workflow, and
// records how it went.
func (r *Runner) start(t config.Trigger, f Firing) {
	out := Firing{ID: f.ID, Trigger: t.Name, State: StateStarted, Time: time.Now().UTC()}
	what := ""
	if t.Workflow != "" {
		run, err := r.opts.Workflows.Start(r.ctx, t.Workflow, json.RawMessage(f.Text))
		out.Run, what = run, "started workflow "+t.Workflow+" (run "+run+")"
		if err != nil {
			out.State, out.Error = StateFailed, err.Error()
		}
	} else {
		rec, err := r.e.Create(core.CreateOptions{Agent: t.Agent, Title: t.Name + " (trigger)", Instructions: f.Text,
			AutoStart: true, Key: KeyPrefix + f.ID})
		out.Session, what = rec.ID, "started session "+rec.ID
		if err != nil {
			out.State, out.Error = StateFailed, err.Error()
		}
	}
	r.mu.Lock()
	if out.Session != "" {
		r.ownedLocked(t.Name)[out.Session] = true
	}
	var err error
	if r.rec != nil {
		err = r.rec.append(out)
		r.done[f.ID] = out.State
	}
	r.mu.Unlock()
	cause := f.Cause
	if out.State == StateFailed {
		r.say("", fmt.Sprintf("trigger %s (%s) could not start: %s", t.Name, cause, out.Error))
		return
	}
	if err != nil {
		// The session runs; a later host finds the firing unfinished and
		// its create returns this session (the key): nothing is doubled.
		r.opts.Logf("trigger %s: %v", t.Name, err)
	}
	r.say(out.Session, fmt.Sprintf("trigger %s fired (%s): %s", t.Name, cause, what))
}

// finishPending starts the firings a host recorded and did not see
// started (it died in between): the session's key makes the create return
// the session when it had been made after all.
func (r *Runner) finishPending(lines []Firing) {
	byName := map[string]config.Trigger{}
	for _, t := range r.triggers {
		byName[t.Name] = t
	}
	for _, f := range lines {
		if f.State != StateFired || r.done[f.ID] != StateFired {
			continue
		}
		t, ok := byName[f.Trigger]
		if !ok || (t.Workflow != "" && !json.Valid([]byte(f.Text))) {
			r.mu.Lock()
			err := r.rec.append(Firing{ID: f.ID, Trigger: f.Trigger, State: StateFailed, Time: time.Now().UTC(),
				Error: "the trigger is no longer configured as it was when it fired"})
			r.done[f.ID] = StateFailed
			r.mu.Unlock()
			if err != nil {
				r.opts.Logf("trigger %s: %v", f.Trigger, err)
			}
			continue
		}
		r.opts.Logf("trigger %s: finishing firing %s, which a host recorded before it stopped", t.Name, f.ID)
		r.start(t, f)
	}
}
