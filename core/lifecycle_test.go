package core

import (
	"errors"
	"testing"

	"github.com/atelier-studio/atelier/harness"
	"github.com/atelier-studio/atelier/harness/scripted"
	"github.com/atelier-studio/atelier/sessions"
)

// inStatus builds a session in the given status on a fresh rig.
func inStatus(t *testing.T, st sessions.Status) (*rig, string) {
	t.Helper()
	switch st {
	case sessions.Created:
		r := newRig(t, MapResolver{"a": &scripted.Model{}})
		return r, r.create(CreateOptions{Agent: "a", Mode: sessions.Continuous}).ID
	case sessions.Running:
		m, _ := gated()
		r := newRig(t, MapResolver{"a": m})
		id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous}).ID
		r.sub2(id, sessions.Active)
		return r, id
	case sessions.Waiting:
		r := newRig(t, MapResolver{"a": &scripted.Model{}})
		id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous}).ID
		r.status(id, sessions.Waiting)
		return r, id
	case sessions.Paused:
		g := make(chan struct{})
		m := &scripted.Model{Script: []scripted.Step{{Calls: []harness.ToolCall{toolCall("c1", "list", map[string]any{})}, Gate: g}}}
		r := newRig(t, MapResolver{"a": m})
		id := r.create(CreateOptions{Agent: "a", AutoStart: true, Mode: sessions.Continuous}).ID
		r.sub2(id, sessions.Active)
		if _, err := r.e.As("").Pause(id); err != nil {
			t.Fatal(err)
		}
		close(g)
		r.status(id, sessions.Paused)
		return r, id
	case sessions.Ended:
		r := newRig(t, MapResolver{"a": &scripted.Model{}})
		id := r.create(CreateOptions{Agent: "a", AutoStart: true}).ID
		r.status(id, sessions.Ended)
		return r, id
	}
	t.Fatalf("no builder for %s", st)
	return nil, ""
}

// TestActionTable tries every action in every status: allowed ones succeed
// and reach the status the lifecycle table says; refused ones return a
// TransitionError naming the status and the action, and change nothing.
func TestActionTable(t *testing.T) {
	statuses := []sessions.Status{sessions.Created, sessions.Running, sessions.Waiting, sessions.Paused, sessions.Ended}
	type act struct {
		a  Action
		do func(e *Engine, id string) error
	}
	acts := []act{
		{ActStart, func(e *Engine, id string) error { return e.As("").Start(id) }},
		{ActPause, func(e *Engine, id string) error { _, err := e.As("").Pause(id); return err }},
		{ActResume, func(e *Engine, id string) error { _, err := e.As("").Resume(id); return err }},
		{ActStop, func(e *Engine, id string) error { _, err := e.As("").Stop(id); return err }},
		{ActCancel, func(e *Engine, id string) error { _, err := e.As("").Cancel(id); return err }},
		{ActSteer, func(e *Engine, id string) error { _, err := e.As("").Steer(id, "go on"); return err }},
		{ActPrompt, func(e *Engine, id string) error { _, err := e.As("").Send(id, "next"); return err }},
		{ActClose, func(e *Engine, id string) error { _, err := e.As("").CloseSession(id); return err }},
		{ActNudge, func(e *Engine, id string) error { _, err := e.As("").Nudge(id); return err }},
	}
	// Where an allowed action leads (the lifecycle table); "" means the
	// status may stay or move on as the turn runs.
	want := map[sessions.Status]map[Action]sessions.Status{
		sessions.Created: {ActStart: sessions.Running, ActCancel: sessions.Ended},
		sessions.Running: {ActStop: sessions.Waiting, ActCancel: sessions.Ended},
		sessions.Waiting: {ActCancel: sessions.Ended, ActClose: sessions.Ended, ActSteer: sessions.Running, ActPrompt: sessions.Running},
		sessions.Paused:  {ActResume: sessions.Running, ActCancel: sessions.Ended},
	}
	for _, st := range statuses {
		for _, a := range acts {
			t.Run(string(st)+"/"+string(a.a), func(t *testing.T) {
				r, id := inStatus(t, st)
				before, _ := r.e.Session(id)
				err := a.do(r.e, id)
				if st == sessions.Ended && a.a == ActClose {
					// Closing what is closed is harmless: no error, no change.
					if err != nil {
						t.Fatalf("close of an ENDED session: %v, want a harmless receipt", err)
					}
					after, _ := r.e.Session(id)
					if after.Status != sessions.Ended || after.EndReason != before.EndReason {
						t.Fatalf("close of an ENDED session changed it: %s/%s → %s/%s", before.Status, before.EndReason, after.Status, after.EndReason)
					}
					return
				}
				if !Allowed(st, a.a) {
					var te *TransitionError
					if !errors.As(err, &te) || te.Status != st || te.Action != string(a.a) {
						t.Fatalf("want a TransitionError for %s in %s, got %v", a.a, st, err)
					}
					after, _ := r.e.Session(id)
					if after.Status != before.Status {
						t.Fatalf("refused %s changed status %s → %s", a.a, before.Status, after.Status)
					}
					return
				}
				if a.a == ActNudge {
					// Allowed in RUNNING only when parked on a timer: a busy
					// session refuses with a TransitionError that says why.
					var te *TransitionError
					if !errors.As(err, &te) {
						t.Fatalf("nudge of a busy session: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s in %s: %v", a.a, st, err)
				}
				if to, ok := want[st][a.a]; ok {
					r.status(id, to)
				}
			})
		}
	}
}

func TestTransitionsTableIsExact(t *testing.T) {
	all := []sessions.Status{sessions.Created, sessions.Running, sessions.Waiting, sessions.Paused, sessions.Ended}
	allowed := map[[2]sessions.Status]bool{
		{sessions.Created, sessions.Running}: true, {sessions.Created, sessions.Ended}: true,
		{sessions.Running, sessions.Waiting}: true, {sessions.Running, sessions.Paused}: true, {sessions.Running, sessions.Ended}: true,
		{sessions.Waiting, sessions.Running}: true, {sessions.Waiting, sessions.Ended}: true,
		{sessions.Paused, sessions.Running}: true, {sessions.Paused, sessions.Ended}: true,
	}
	for _, a := range all {
		for _, b := range all {
			if got := canMove(a, b); got != allowed[[2]sessions.Status{a, b}] {
				t.Errorf("%s → %s: table says %v", a, b, got)
			}
		}
	}
}
